package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.RateLimiter;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The limits over real HTTP ({@code /api/v1/limiters}), held to one behaviour on every engine: each subclass gives
 * an engine. Windows are an hour long, so that no permit comes back while a test runs.
 */
abstract class LimiterApiContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration HOUR = Duration.ofHours(1);
    private final HttpClient http = HttpClient.newHttpClient();

    Sluice sluice;
    SluiceServer server;

    /** A new, empty engine. */
    abstract Sluice newEngine();

    @BeforeEach
    void start() {
        sluice = newEngine();
        RateLimiter tenant = sluice.limiter("tenant", FixedWindow.of(2, HOUR));
        RateLimiter global = sluice.limiter("global", Gcra.of(1, HOUR, 3));
        SluiceApiServlet api = SluiceApiServlet.builder(sluice)
                .limiter(tenant)
                .limiter(global)
                .limiter(sluice.concurrencyLimiter("slots", ConcurrencyLimit.of(2, Duration.ofSeconds(30))))
                .chain(
                        "checkout",
                        sluice.<String>chain()
                                .layer(tenant, key -> key)
                                .layer(global, "all")
                                .build())
                .build();
        server = SluiceServer.builder(api).port(0).start();
    }

    @AfterEach
    void stop() {
        server.close();
        sluice.close();
    }

    /** What one request answered. */
    record Answer(int status, HttpHeaders headers, JsonNode body) {
        String header(String name) {
            return headers.firstValue(name).orElse(null);
        }
    }

    Answer call(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(server.uri().resolve(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers(), JSON.readTree(response.body()));
    }

    Answer acquire(String limiter, String key) throws IOException, InterruptedException {
        return call("POST", "/api/v1/limiters/" + limiter + "/acquire", "{\"key\": \"" + key + "\"}");
    }

    @Test
    void listsTheLimitersAndChainsWithTheirPoliciesAndParameters() throws Exception {
        Answer all = call("GET", "/api/v1/limiters", null);
        Answer one = call("GET", "/api/v1/limiters/global", null);

        assertThat(all.status()).isEqualTo(200);
        assertThat(all.body().get("limiters"))
                .extracting(l -> l.get("name").asText())
                .containsExactly("checkout", "global", "slots", "tenant");
        JsonNode checkout = all.body().get("limiters").get(0);
        assertThat(checkout.get("kind").asText()).isEqualTo("chain");
        assertThat(checkout.get("layers"))
                .extracting(
                        l -> l.get("limiter").asText() + ":" + l.get("policy").asText())
                .containsExactly("tenant:fixed-window", "global:gcra");
        assertThat(checkout.get("limit").asLong()).isEqualTo(2);
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.body().get("kind").asText()).isEqualTo("limiter");
        assertThat(one.body().get("policy").asText()).isEqualTo("gcra");
        assertThat(one.body().get("parameters"))
                .isEqualTo(JSON.readTree("{\"rate\": 1, \"period\": \"1h\", \"burst\": 3}"));
        assertThat(one.body().get("limit").asLong()).isEqualTo(3);
    }

    @Test
    void anAllowedRequestIs200WithTheDecisionAndTheRateLimitFields() throws Exception {
        Answer answer = acquire("tenant", "acme");

        assertThat(answer.status()).isEqualTo(200);
        JsonNode decision = answer.body();
        assertThat(decision.get("allowed").asBoolean()).isTrue();
        assertThat(decision.get("limiter").asText()).isEqualTo("tenant");
        assertThat(decision.get("key").asText()).isEqualTo("acme");
        assertThat(decision.get("permits").asLong()).isEqualTo(1);
        assertThat(decision.get("remaining").asLong()).isEqualTo(1);
        assertThat(decision.get("limit").asLong()).isEqualTo(2);
        assertThat(decision.get("retryAfterNanos").asLong()).isZero();
        assertThat(decision.get("policy").asText()).isEqualTo("fixed-window");
        assertThat(decision.get("decidedBy").asText()).isEqualTo("tenant");
        assertThat(decision.get("basis").asText()).isEqualTo("limit");
        long reset = decision.get("resetAfterSeconds").asLong();
        assertThat(reset).isBetween(1L, 3600L);
        assertThat(answer.header("RateLimit-Policy")).isEqualTo("\"tenant\";q=2;w=3600");
        assertThat(answer.header("RateLimit")).isEqualTo("\"tenant\";r=1;t=" + reset);
        assertThat(answer.header("Retry-After")).isNull();
    }

    @Test
    void aDeniedRequestIs429WithRetryAfterAndStillTheDecision() throws Exception {
        acquire("tenant", "acme");
        acquire("tenant", "acme");

        Answer denied = acquire("tenant", "acme");
        Answer otherKey = acquire("tenant", "globex");

        assertThat(denied.status()).isEqualTo(429);
        assertThat(denied.body().get("allowed").asBoolean()).isFalse();
        assertThat(denied.body().get("remaining").asLong()).isZero();
        long retry = denied.body().get("retryAfterSeconds").asLong();
        assertThat(retry).isBetween(1L, 3600L);
        assertThat(denied.body().get("retryAfterNanos").asLong())
                .isBetween((retry - 1) * 1_000_000_000L + 1, retry * 1_000_000_000L);
        assertThat(denied.header("Retry-After")).isEqualTo(Long.toString(retry));
        assertThat(denied.header("RateLimit")).isEqualTo("\"tenant\";r=0;t=" + retry);
        assertThat(otherKey.status()).isEqualTo(200);
    }

    @Test
    void permitsAreTakenTogether() throws Exception {
        Answer two = call("POST", "/api/v1/limiters/global/acquire", "{\"key\": \"k\", \"permits\": 2}");
        Answer twoMore = call("POST", "/api/v1/limiters/global/acquire", "{\"key\": \"k\", \"permits\": 2}");

        assertThat(two.status()).isEqualTo(200);
        assertThat(two.body().get("remaining").asLong()).isEqualTo(1);
        assertThat(twoMore.status()).isEqualTo(429);
        assertThat(acquire("global", "k").body().get("allowed").asBoolean()).isTrue();
    }

    @Test
    void aChainIsAllOrNothingAndNamesTheLayerThatDenied() throws Exception {
        acquire("checkout", "acme");
        acquire("checkout", "acme");
        Answer byTenant = acquire("checkout", "acme"); // denied by tenant: must not take global's permit
        Answer third = acquire("checkout", "globex"); // global's third and last
        Answer byGlobal = acquire("checkout", "globex");

        assertThat(byTenant.status()).isEqualTo(429);
        assertThat(byTenant.body().get("limiter").asText()).isEqualTo("checkout");
        assertThat(byTenant.body().get("decidedBy").asText()).isEqualTo("tenant");
        assertThat(byTenant.body().get("policy").asText()).isEqualTo("fixed-window");
        assertThat(third.status()).isEqualTo(200);
        assertThat(byGlobal.status()).isEqualTo(429);
        assertThat(byGlobal.body().get("decidedBy").asText()).isEqualTo("global");
        assertThat(byGlobal.body().get("policy").asText()).isEqualTo("gcra");
        assertThat(byGlobal.header("RateLimit-Policy")).isEqualTo("\"tenant\";q=2;w=3600, \"global\";q=3;w=10800");
        assertThat(byGlobal.header("RateLimit")).startsWith("\"global\";r=0;t=");
    }

    @Test
    void badRequestsAreProblemsNamingTheAllowedValues() throws Exception {
        Answer unknown = acquire("stripe", "k");
        Answer noKey = call("POST", "/api/v1/limiters/tenant/acquire", "{\"permits\": 1}");
        Answer emptyKey = acquire("tenant", "");
        Answer tooMany = call("POST", "/api/v1/limiters/tenant/acquire", "{\"key\": \"k\", \"permits\": 3}");
        Answer notWhole = call("POST", "/api/v1/limiters/tenant/acquire", "{\"key\": \"k\", \"permits\": 1.5}");
        Answer extra = call("POST", "/api/v1/limiters/tenant/acquire", "{\"key\": \"k\", \"cost\": 1}");
        Answer malformed = call("POST", "/api/v1/limiters/tenant/acquire", "{\"key\": ");
        Answer method = call("GET", "/api/v1/limiters/tenant/acquire", null);
        Answer route = call("GET", "/api/v1/limiters/tenant/state", null);
        Answer lease = acquire("slots", "k");

        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().get("type").asText()).isEqualTo("urn:sluice:problem:limiter-not-found");
        assertThat(unknown.body().get("detail").asText())
                .isEqualTo("limiter 'stripe' does not exist (limiters: checkout, global, slots, tenant)");
        for (Answer bad : new Answer[] {noKey, emptyKey, tooMany, notWhole, extra, malformed}) {
            assertThat(bad.status()).as(bad.body().toString()).isEqualTo(400);
            assertThat(bad.body().get("type").asText()).isEqualTo("urn:sluice:problem:invalid-request");
        }
        assertThat(noKey.body().get("detail").asText()).startsWith("key must be a string of 1 to 512 characters");
        assertThat(tooMany.body().get("detail").asText())
                .isEqualTo("permits must be a whole number from 1 to 2 (the limit of 'tenant'), was 3");
        assertThat(extra.body().get("detail").asText()).isEqualTo("unknown field 'cost' (fields: key, permits)");
        assertThat(method.status()).isEqualTo(405);
        assertThat(route.status()).isEqualTo(404);
        assertThat(lease.status()).isEqualTo(409);
        assertThat(lease.body().get("detail").asText()).contains("'slots' is a concurrency limiter");
        assertThat(acquire("tenant", "k").body().get("remaining").asLong())
                .as("no refused request took a permit")
                .isEqualTo(1);
    }

    @Test
    void aConfigurationFileOpensItsQueuesLimitersAndChains() throws Exception {
        ServerConfig config = ServerConfig.parse("""
                queues:
                  mail: {maxQueued: 7, concurrency: 2}
                limiters:
                  per-user: {policy: token-bucket, capacity: 1, refillPeriod: 1h}
                  everyone: {policy: sliding-window-log, limit: 10, window: 1h}
                chains:
                  send: [per-user, {limiter: everyone, key: all}]
                """, "test.yaml", Map.of());
        try (SluiceServer configured =
                SluiceServer.builder(config.open(sluice).build()).port(0).start()) {
            assertThat(sluice.queueNames()).contains("mail");
            assertThat(sluice.existingQueue("mail").orElseThrow().options().maxQueued())
                    .isEqualTo(7);
            HttpResponse<String> first = http.send(
                    HttpRequest.newBuilder(configured.uri().resolve("/api/v1/limiters/send/acquire"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"key\": \"ada\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> second = http.send(
                    HttpRequest.newBuilder(configured.uri().resolve("/api/v1/limiters/send/acquire"))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"key\": \"ada\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(second.statusCode()).isEqualTo(429);
            assertThat(JSON.readTree(second.body()).get("decidedBy").asText()).isEqualTo("per-user");
        }
    }
}
