package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.server.ServerConfig;
import dev.sluice.server.SluiceServer;
import dev.sluice.testkit.redis.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./sluice serve}: the API answers while it runs, on the in-memory engine and on Redis, and stops. */
class ServeCommandTest {
    private static final Pattern URL = Pattern.compile("at (http://127\\.0\\.0\\.1:\\d+/)api/v1/queues");

    /** Runs {@code serve} with {@code args}; while it runs, GETs {@code path} and returns what it answered. */
    private static String serveAndGet(String path, String... args) throws Exception {
        return serveAndGet(new StringBuilder(), path, args);
    }

    /** As above; what {@code serve} printed goes into {@code printed}. */
    private static String serveAndGet(StringBuilder printed, String path, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] answer = new String[1];
        int status = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl, serve) -> {
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
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("loopback only", "sluice serve: the dashboard at http://127.0.0.1:", "sluice serve: stopped");
        printed.append(out.toString(StandardCharsets.UTF_8));
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
                (seconds, redisUrl, serve) -> {},
                start -> {
                    throw new AssertionError("nothing is to start");
                });
        assertThat(status).isEqualTo(Main.USAGE_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--port", "0 to 65535");
    }

    @Test
    void servesWhatAConfigurationFileDeclaresAndSaysWhat(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, """
                server: {port: 0}
                queues: {mail: {maxQueued: 5}}
                limiters: {stripe: {policy: gcra, rate: 10, period: 1s, burst: 2}}
                chains: {pay: [stripe]}
                """);
        StringBuilder printed = new StringBuilder();

        String answer = serveAndGet(printed, "/api/v1/limiters", "serve", "--config", file.toString());

        JsonNode limiters = new ObjectMapper().readTree(answer.substring(4)).get("limiters");
        assertThat(answer).startsWith("200 ");
        assertThat(limiters).extracting(l -> l.get("name").asText()).containsExactly("pay", "stripe");
        assertThat(printed.toString())
                .contains("sluice serve: from " + file + ": queues mail; limiters stripe and chains pay at http://"
                        + "127.0.0.1:")
                .contains("api/v1/limiters; tokens none");
    }

    @Test
    void thePortOnTheCommandLineWinsOverTheFile(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Path file = dir.resolve("sluice.yaml");
            Files.writeString(file, "server: {port: " + taken.getLocalPort() + "}\n");

            assertThat(serveAndGet("/health/live", "serve", "--config", file.toString(), "--port", "0"))
                    .isEqualTo("200 {\"status\":\"UP\"}");
        }
    }

    @Test
    void aBadFileIsAUsageErrorNamingTheKeyAndNothingStarts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, "limiters:\n  stripe: {policy: gcra, rate: ten, period: 1s}\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = Main.run(
                new String[] {"serve", "--config", file.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl, serve) -> {},
                start -> {
                    throw new AssertionError("nothing is to start");
                });

        assertThat(status).isEqualTo(Main.USAGE_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("sluice: " + file + ": limiters.stripe.rate: must be a whole number from 1 to "
                        + Long.MAX_VALUE + ", was 'ten'" + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void theExampleFileLoadsAndServesItsChain() throws Exception {
        ServerConfig config = ServerConfig.load(
                Path.of("sluice.example.yaml"),
                Map.of("SLUICE_CI_TOKEN", "ci-0123456789abcdef", "SLUICE_OPS_TOKEN", "ops-0123456789abcdef"));
        assertThat(config.tokens()).extracting(ServerConfig.Token::name).containsExactly("ci", "ops");
        assertThat(config.queues().keySet()).containsExactly("mail", "webhooks");

        try (Sluice sluice = Sluice.inMemory();
                SluiceServer server = SluiceServer.builder(config.open(sluice).build())
                        .port(0)
                        .start()) {
            HttpResponse<String> response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(server.uri().resolve("/api/v1/limiters/checkout/acquire"))
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"key\": \"acme\"}"))
                                    .header("Authorization", "Bearer ci-0123456789abcdef")
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"per-tenant\";q=600;w=60, \"stripe\";q=25;w=1");
            assertThat(sluice.queueNames()).containsExactly("mail", "webhooks");
        }
    }

    @Test
    void theReadmeShowsTheExampleFileAsItIs() throws Exception {
        String readme = Files.readString(Path.of("../README.md"));
        String example = Files.readString(Path.of("sluice.example.yaml"));

        assertThat(readme).contains("```yaml\n" + example + "```\n");
    }
}
