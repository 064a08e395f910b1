package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.testkit.redis.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sluice demo --serve}: the dashboard's URL comes before the demo's first line, the dashboard shows the
 * demo's queue while it plays and its completed jobs once it has played, and stopping the command stops the server;
 * on the in-memory engine and on Redis.
 */
class DemoServeTest {
    private static final Pattern DASHBOARD =
            Pattern.compile("sluice demo: the dashboard is at (http://127\\.0\\.0\\.1:\\d+/)dashboard/ ");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** What the test saw of the served demo. */
    private record Seen(JsonNode whilePlaying, JsonNode afterwards, int dashboardStatus, URI server) {}

    @Test
    void servesTheInMemoryDemoWhileItPlaysAndAfterUntilStopped() throws Exception {
        Seen seen = serveDemo("demo", "--seconds", "2", "--serve", "--port", "0");

        assertServedTheDemo(seen);
    }

    @Test
    void servesTheDemoOnRedis() throws Exception {
        Seen seen = serveDemo(
                "demo",
                "--seconds",
                "2",
                "--serve",
                "--port",
                "0",
                "--redis",
                RedisServer.shared().uri());

        assertServedTheDemo(seen);
        assertThat(seen.afterwards().get("engine").has("redis"))
                .as(seen.afterwards().get("engine").toString())
                .isTrue();
    }

    private void assertServedTheDemo(Seen seen) throws IOException, InterruptedException {
        String printed = out();
        assertThat(printed.indexOf("sluice demo: the dashboard is at "))
                .as("the URL before the demo's first line")
                .isNotNegative()
                .isLessThan(printed.indexOf("Sluice demo: 5 tenants"));
        assertThat(printed)
                .contains("Verdict:")
                .contains("sluice demo: the demo has ended; the dashboard stays at " + seen.server() + "dashboard/"
                        + " until SIGTERM or Ctrl-C")
                .endsWith("sluice demo: the dashboard stopped" + System.lineSeparator());
        assertThat(seen.dashboardStatus()).isEqualTo(200);

        JsonNode playing = deliveries(seen.whilePlaying());
        assertThat(playing.get("totals").get("added").asLong()).isPositive();

        JsonNode done = deliveries(seen.afterwards());
        long completed = done.get("totals").get("completed").asLong();
        assertThat(completed).as(done.toString()).isPositive();
        assertThat(done.get("counts").get("completed").asLong()).isEqualTo(completed);
        assertThat(done.get("counts").get("waiting").asLong()).isZero();
        assertThat(printed).contains("completed + ").containsPattern("= " + completed + " completed \\+ ");

        assertThatThrownBy(() -> get(seen.server(), "/health/live"))
                .as("the server stopped")
                .isInstanceOf(ConnectException.class);
    }

    /**
     * Runs {@code args} with the demo as {@code ./sluice} runs it. While it plays, a thread reads the dashboard's
     * snapshot until the demo's queue is in it; once it has played, the test reads the snapshot and the dashboard's
     * page, then stops it as SIGTERM would.
     */
    private Seen serveDemo(String... args) throws Exception {
        PrintStream printTo = new PrintStream(out, true, StandardCharsets.UTF_8);
        AtomicReference<JsonNode> whilePlaying = new AtomicReference<>();
        List<Object> afterwards = new ArrayList<>();
        Thread watcher = Thread.ofVirtual().start(() -> watchWhilePlaying(whilePlaying));
        Main.Lifetime lifetime = start -> {
            Main.Running running = start.start();
            try {
                URI server = server();
                afterwards.add(JSON.readTree(get(server, "/api/v1/dashboard/snapshot")));
                afterwards.add(HTTP.send(
                                HttpRequest.newBuilder(server.resolve("/dashboard/"))
                                        .build(),
                                HttpResponse.BodyHandlers.discarding())
                        .statusCode());
            } catch (IOException e) {
                throw new AssertionError(e);
            } finally {
                running.stop();
            }
        };

        int status = Main.run(
                args,
                printTo,
                new PrintStream(err, true, StandardCharsets.UTF_8),
                Main.demo(printTo, lifetime),
                lifetime);

        watcher.join(Duration.ofSeconds(5));
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(whilePlaying.get())
                .as("a snapshot with the demo's queue while it played")
                .isNotNull();
        assertThat(afterwards).as(out()).hasSize(2);
        return new Seen(whilePlaying.get(), (JsonNode) afterwards.get(0), (Integer) afterwards.get(1), server());
    }

    /**
     * Polls the snapshot from when the URL is printed until it holds the demo's queue with jobs added, before the demo
     * has ended.
     */
    private void watchWhilePlaying(AtomicReference<JsonNode> seen) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> DASHBOARD.matcher(out()).find());
        URI server = server();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    boolean ended = out().contains("the demo has ended");
                    JsonNode snapshot = JSON.readTree(get(server, "/api/v1/dashboard/snapshot"));
                    if (ended) {
                        return true; // too late: whilePlaying stays null, and the test fails
                    }
                    JsonNode queue = queue(snapshot, "deliveries");
                    if (queue != null && queue.get("totals").get("added").asLong() > 0) {
                        seen.set(snapshot);
                        return true;
                    }
                    return false;
                });
    }

    private URI server() {
        Matcher m = DASHBOARD.matcher(out());
        assertThat(m.find()).as(out()).isTrue();
        return URI.create(m.group(1));
    }

    private static JsonNode deliveries(JsonNode snapshot) {
        JsonNode queue = queue(snapshot, "deliveries");
        assertThat(queue).as(snapshot.toString()).isNotNull();
        return queue;
    }

    private static JsonNode queue(JsonNode snapshot, String name) {
        return StreamSupport.stream(snapshot.get("queues").spliterator(), false)
                .filter(q -> q.get("name").asText().equals(name))
                .findFirst()
                .orElse(null);
    }

    private static String get(URI server, String path) throws IOException, InterruptedException {
        HttpResponse<String> response =
                HTTP.send(HttpRequest.newBuilder(server.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return response.body();
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }
}
