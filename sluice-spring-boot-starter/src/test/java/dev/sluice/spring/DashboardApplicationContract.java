package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sluice's API and dashboard mounted in the test application by the starter (profile {@code dashboard}: tokens
 * {@code ops} of scope operate and {@code root} of scope admin, and reads without a token), over real HTTP on its
 * Tomcat: the API over the application's engine, queues and limiters, the dashboard's page and files, its
 * server-sent events, and the tokens. Subclassed once per engine.
 */
abstract class DashboardApplicationContract {
    static final String OPS = "ops-secret-for-the-tests";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersUnderSluiceWithTheApplicationsQueuesAndDeclaredLimiters() throws Exception {
        HttpResponse<String> queues = call("GET", "/sluice/api/v1/queues", null, null);

        assertThat(queues.statusCode()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        JSON.readTree(queues.body())
                .get("queues")
                .forEach(q -> names.add(q.get("name").asString()));
        assertThat(names).contains("mail", "digest");
        HttpResponse<String> limiters = call("GET", "/sluice/api/v1/limiters", null, null);
        assertThat(limiters.statusCode()).isEqualTo(200);
        assertThat(limiters.body()).contains("\"api-burst\"", "\"api-daily\"", "\"reports\"", "\"exports\"");
        assertThat(call("GET", "/sluice/health/ready", null, null).statusCode()).isEqualTo(200);
    }

    @Test
    void addsAJobOverTheApiThatTheApplicationsWorkerRuns() throws Exception {
        String payload = "over-http-" + UUID.randomUUID();

        HttpResponse<String> added = call(
                "POST",
                "/sluice/api/v1/queues/mail/jobs",
                OPS,
                "{\"name\":\"welcome\",\"payload\":\"" + payload + "\"}");

        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> TestApplication.MAILED.contains(payload));
    }

    @Test
    void asksForATokenOfTheScopeEachChangeNeeds() throws Exception {
        HttpResponse<String> anonymous = call("POST", "/sluice/api/v1/queues/digest/pause", null, null);
        assertThat(anonymous.statusCode()).isEqualTo(403);
        assertThat(anonymous.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(anonymous.body())
                .contains("urn:sluice:problem:forbidden", "needs scope operate; token 'anonymous' has scope read");
        HttpResponse<String> stranger =
                call("POST", "/sluice/api/v1/queues/digest/pause", "not-a-token-of-this-app", null);
        assertThat(stranger.statusCode()).isEqualTo(401);
        assertThat(stranger.body()).contains("urn:sluice:problem:unauthorized");
        assertThat(stranger.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"sluice\"");

        HttpResponse<String> drain = call("POST", "/sluice/api/v1/queues/digest/drain", OPS, null);
        assertThat(drain.statusCode()).isEqualTo(403);
        assertThat(drain.body()).contains("needs scope admin; token 'ops' has scope operate");

        try {
            assertThat(call("POST", "/sluice/api/v1/queues/digest/pause", OPS, null)
                            .statusCode())
                    .isEqualTo(200);
            assertThat(JSON.readTree(call("GET", "/sluice/api/v1/queues/digest", null, null)
                                    .body())
                            .get("paused")
                            .asBoolean())
                    .isTrue();
        } finally {
            assertThat(call("POST", "/sluice/api/v1/queues/digest/resume", OPS, null)
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void theDashboardsTokenFormStartsASessionWhoseCookieActsBelowThePath() throws Exception {
        HttpResponse<String> session = call("POST", "/sluice/api/v1/session", null, "{\"token\":\"" + OPS + "\"}");

        assertThat(session.statusCode()).as(session.body()).isEqualTo(200);
        assertThat(session.body()).contains("\"name\":\"ops\"", "\"scope\":\"operate\"");
        String cookie = session.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(cookie).startsWith("sluice_session=").contains("Path=/sluice/", "HttpOnly", "SameSite=Strict");
        HttpRequest pause = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/sluice/api/v1/queues/digest/pause"))
                .header("Cookie", cookie.substring(0, cookie.indexOf(';')))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        try {
            assertThat(http.send(pause, HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(200);
        } finally {
            assertThat(call("POST", "/sluice/api/v1/queues/digest/resume", OPS, null)
                            .statusCode())
                    .isEqualTo(200);
        }
    }

    @Test
    void loadsTheDashboardPageAndItsBundledFilesAndLeadsThereFromThePath() throws Exception {
        HttpResponse<String> page = call("GET", "/sluice/dashboard/", null, null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.body()).contains("dashboard.js", "uplot.min.js");
        for (String file : List.of("dashboard.js", "dashboard.css", "uplot.min.js", "uplot.min.css")) {
            HttpResponse<String> asset = call("GET", "/sluice/dashboard/" + file, null, null);
            assertThat(asset.statusCode()).as(file).isEqualTo(200);
            assertThat(asset.body()).as(file).isNotBlank();
            assertThat(asset.headers().firstValue("Content-Type"))
                    .as(file)
                    .hasValueSatisfying(
                            t -> assertThat(t).startsWith(file.endsWith(".js") ? "text/javascript" : "text/css"));
        }
        for (String path : List.of("/sluice", "/sluice/", "/sluice/dashboard")) {
            HttpResponse<String> redirect = call("GET", path, null, null);
            assertThat(redirect.statusCode()).as(path).isEqualTo(302);
            assertThat(redirect.headers().firstValue("Location"))
                    .as(path)
                    .hasValueSatisfying(l -> assertThat(l).endsWith("/sluice/dashboard/"));
        }
    }

    @Test
    void streamsTheDashboardsSnapshotsAsServerSentEvents() throws Exception {
        HttpResponse<InputStream> events = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/sluice/api/v1/dashboard/events"))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))) {
            assertThat(events.statusCode()).isEqualTo(200);
            assertThat(events.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
            List<String> seen = new ArrayList<>();
            String snapshot = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                boolean next = false;
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    seen.add(line);
                    if (next && line.startsWith("data: ")) {
                        return line.substring("data: ".length());
                    }
                    next = line.equals("event: snapshot");
                }
                return null;
            });
            assertThat(seen).contains("event: history");
            assertThat(snapshot).as("a snapshot event after %s", seen).isNotNull();
            assertThat(snapshot).contains("\"mail\"", "\"digest\"");
        }
    }

    @Test
    void servesTheApplicationsPrometheusRegistryAtMetrics() throws Exception {
        HttpResponse<String> metrics = call("GET", "/sluice/metrics", null, null);

        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("sluice_queue_jobs{", "queue=\"mail\"");
    }
}
