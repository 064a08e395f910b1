package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.redis.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code ./sluice serve}: the API answers while it runs, on the in-memory engine and on Redis, and stops. */
class ServeCommandTest {
    private static final Pattern URL = Pattern.compile("at (http://127\\.0\\.0\\.1:\\d+/)api/v1/queues");

    /** Runs {@code serve} with {@code args}; while it runs, GETs {@code path} and returns what it answered. */
    private static String serveAndGet(String path, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] answer = new String[1];
        int status = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl) -> {
                    throw new AssertionError("no demo is to run");
                },
                start -> {
                    Main.Running running = start.start();
                    try {
                        Matcher m = URL.matcher(out.toString(StandardCharsets.UTF_8));
                        assertThat(m.find())
                                .as(out.toString(StandardCharsets.UTF_8))
                                .isTrue();
                        HttpResponse<String> response = HttpClient.newHttpClient()
                                .send(
                                        HttpRequest.newBuilder(
                                                        URI.create(m.group(1)).resolve(path))
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString());
                        answer[0] = response.statusCode() + " " + response.body();
                    } catch (java.io.IOException e) {
                        throw new AssertionError(e);
                    } finally {
                        running.stop();
                    }
                });
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("loopback only", "sluice serve: stopped");
        return answer[0];
    }

    @Test
    void servesTheInMemoryEngine() throws Exception {
        assertThat(serveAndGet("/api/v1/queues", "serve", "--port", "0")).isEqualTo("200 {\"queues\":[]}");
    }

    @Test
    void servesTheQueuesOfARedis() throws Exception {
        assertThat(serveAndGet(
                        "/health/ready",
                        "serve",
                        "--port",
                        "0",
                        "--redis",
                        RedisServer.shared().uri()))
                .isEqualTo("200 {\"status\":\"UP\"}");
    }

    @Test
    void aPortOutOfRangeIsAUsageError() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(
                new String[] {"serve", "--port", "70000"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl) -> {},
                start -> {
                    throw new AssertionError("nothing is to start");
                });
        assertThat(status).isEqualTo(Main.USAGE_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--port", "0 to 65535");
    }
}
