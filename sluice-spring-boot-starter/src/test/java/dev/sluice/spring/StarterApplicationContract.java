package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Retention;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The test application on a real Tomcat, as a user runs it: what {@code application.yml} declares holds over HTTP,
 * and Actuator shows Sluice's state. Subclassed once per engine.
 */
abstract class StarterApplicationContract {
    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    SluiceRegistry registry;

    @Autowired
    Sluice sluice;

    HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersTheLimitOfApplicationYmlExactlyThenTooManyRequestsWithRetryAfter() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> last = null;
        for (int i = 0; i < 5; i++) {
            last = get("/api/hello");
            statuses.add(last.statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 429, 429);
        assertThat(last.headers().firstValue("Retry-After"))
                .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isPositive());
        assertThat(last.headers().firstValue("RateLimit-Policy"))
                .hasValueSatisfying(v -> assertThat(v).contains("\"api-burst\";q=3"));
        assertThat(last.headers().firstValue("X-RateLimit-Limit")).isPresent();
        assertThat(last.body()).contains("\"rule\":\"api\"");
        assertThat(get("/open").statusCode()).isEqualTo(200);
    }

    @Test
    void answersARateLimitedControllerMethodWithTooManyRequestsAndRetryAfterWithoutRunningIt() throws Exception {
        String tenant = "acme-" + UUID.randomUUID();

        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> last = null;
        for (int i = 0; i < 3; i++) {
            last = get("/reports/" + tenant);
            statuses.add(last.statusCode());
        }

        assertThat(statuses).containsExactly(200, 200, 429);
        assertThat(last.headers().firstValue("Retry-After"))
                .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, 3600L));
        assertThat(last.body()).contains("\"status\":429");
        assertThat(TestApplication.REPORTED.stream().filter(tenant::equals)).hasSize(2);
        assertThat(get("/reports/other-" + tenant).statusCode()).isEqualTo(200);
    }

    @Test
    void healthShowsSluiceUpWithEachQueuesBacklog() throws Exception {
        HttpResponse<String> health = get("/actuator/health");

        assertThat(health.statusCode()).isEqualTo(200);
        JsonNode sluice = JsonMapper.builder().build().readTree(health.body()).at("/components/sluice");
        assertThat(sluice.at("/status").asString()).isEqualTo("UP");
        assertThat(sluice.at("/details/engine").asString()).isEqualTo(this.sluice.toString());
        JsonNode mail = sluice.at("/details/queues/mail");
        assertThat(mail.propertyNames()).containsExactly("waiting", "active", "delayed");
        assertThat(mail.at("/delayed").asLong()).isZero();
    }

    @Test
    void sluiceEndpointListsTheLimitersAndTheQueuesWithTheirState() throws Exception {
        registry.queue("digest").pause();
        try {
            HttpResponse<String> response = get("/actuator/sluice");

            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode state = JsonMapper.builder().build().readTree(response.body());
            assertThat(state.at("/engine").asString()).isEqualTo(this.sluice.toString());
            assertThat(state.at("/limiters").propertyNames())
                    .containsExactly("api-burst", "api-daily", "exports", "reports");
            assertThat(state.at("/limiters/api-burst/kind").asString()).isEqualTo("rate");
            assertThat(state.at("/limiters/exports/kind").asString()).isEqualTo("concurrency");
            assertThat(state.at("/limiters/exports/policy").asString()).isEqualTo("ConcurrencyLimit.of(2, 5 min)");
            assertThat(state.at("/limiters/api-burst/policy").asString())
                    .isEqualTo(registry.limiter("api-burst").policy().toString());
            assertThat(state.at("/limiters/api-burst/limit").asLong()).isEqualTo(3);
            assertThat(state.at("/limiters/api-burst/whenUnavailable").asString())
                    .isEqualTo("fail-closed");
            JsonNode mail = state.at("/queues/mail");
            assertThat(mail.at("/paused").asBoolean()).isFalse();
            assertThat(mail.at("/rate").asString())
                    .isEqualTo(registry.queue("mail").options().rate().toString());
            assertThat(mail.at("/concurrency").isNull()).isTrue();
            assertThat(mail.at("/jobs").propertyNames())
                    .containsExactly("waiting", "delayed", "active", "completed", "failed");
            assertThat(state.at("/queues/digest/paused").asBoolean()).isTrue();
            assertThat(state.at("/queues/digest/jobs/delayed").asLong()).isEqualTo(1);
        } finally {
            registry.queue("digest").resume();
        }
        assertThat(get("/actuator/sluice").body()).contains("\"paused\":false");
    }

    @Test
    void prometheusShowsTheLimitersDecisions() throws Exception {
        get("/api/hello");

        HttpResponse<String> scrape = get("/actuator/prometheus");

        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.body())
                .contains("sluice_limiter_decisions_total{")
                .contains("limiter=\"api-burst\"")
                .contains("sluice_queue_jobs{");
    }

    @Test
    void runsAJobOfTheQueueDeclaredInProperties() {
        String payload = "ada-" + UUID.randomUUID();

        registry.queue("mail").add("welcome", payload);

        await().atMost(Duration.ofSeconds(20)).until(() -> TestApplication.MAILED.contains(payload));
    }

    @Test
    void givesEachJobTheDefaultsOfApplicationYmlAndRegistersItsRepeatableJobs() {
        JobQueue<String> mail = registry.queue("mail");

        String id = mail.add("welcome", "grace-" + UUID.randomUUID()).job().id();

        JobOptions options = mail.job(id).orElseThrow().options();
        assertThat(options.attempts()).isEqualTo(4);
        assertThat(options.keepCompleted()).isEqualTo(Retention.keepLast(500));
        assertThat(registry.queue("digest").repeatables()).singleElement().satisfies(weekly -> {
            assertThat(weekly.id()).isEqualTo("properties:weekly");
            assertThat(weekly.template().payload()).isEqualTo("every subscriber");
            assertThat(weekly.nextRun()).isNotNull();
        });
    }

    @Test
    void opensTheDeclaredLimitersOnTheEngineBean() {
        assertThat(registry.limiters()).containsOnlyKeys("api-burst", "api-daily", "exports", "reports");
        assertThat(registry.limiter("api-burst").policy().limit()).isEqualTo(3);
        assertThat(registry.limiter("api-burst")).isInstanceOf(RateLimiter.class);
        assertThat(registry.limiter("exports", ConcurrencyLimiter.class)
                        .policy()
                        .maxConcurrent())
                .isEqualTo(2);
        assertThat(sluice.toString()).isNotBlank();
    }
}
