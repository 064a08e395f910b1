package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines run in this JVM as {@code ./sluice} runs them, on the shared test Redis: what they printed, parsed
 * as JSON, and the keys Redis holds.
 */
final class CommandRuns {
    static final RedisServer REDIS = RedisServer.shared();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NL = System.lineSeparator();

    private CommandRuns() {}

    /** What one command line printed, and its exit status. */
    record Ran(int status, String out, String err) {
        /** The one line it printed, which must be a success. */
        JsonNode json() {
            assertThat(status).as(err).isZero();
            assertThat(out).as("one line").hasLineCount(1);
            return lines().get(0);
        }

        /** The lines it printed, which must be a success. */
        List<JsonNode> lines() {
            assertThat(status).as(err).isZero();
            assertThat(err).isEmpty();
            return out.lines().map(CommandRuns::parse).toList();
        }

        /** Checks that it could not do its work for the reason {@code problem}, and printed nothing else. */
        void failsWith(String problem) {
            assertThat(status).as(out).isEqualTo(Main.FAILURE);
            assertThat(err).isEqualTo("sluice: " + problem + NL);
            assertThat(out).isEmpty();
        }
    }

    static JsonNode parse(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code args}, a command line that starts no demo and no worker. */
    static Ran run(String... args) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl, serve) -> {
                    throw new AssertionError("no demo is to run");
                },
                start -> {
                    throw new AssertionError("no worker is to start");
                });
        return new Ran(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Runs {@code command} on queue {@code queue} of the test's Redis, with {@code options}. */
    static Ran on(String queue, String command, String... options) throws InterruptedException {
        List<String> args = new ArrayList<>(List.of(command, "--redis", REDIS.uri(), "--queue", queue));
        args.addAll(List.of(options));
        return run(args.toArray(String[]::new));
    }

    /** The line of {@code queues} about queue {@code name}, or null if it lists none. */
    static JsonNode listed(String name) throws InterruptedException {
        return run("queues", "--redis", REDIS.uri()).lines().stream()
                .filter(line -> line.get("name").asText().equals(name))
                .findFirst()
                .orElse(null);
    }

    /** The ids of the jobs {@code lines} describe. */
    static List<String> ids(List<JsonNode> lines) {
        return lines.stream().map(line -> line.get("id").asText()).toList();
    }

    /** The names of the fields of {@code node}, in order, separated by commas. */
    static String fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return String.join(",", names);
    }

    /** The keys of the test's Redis that match a pattern. */
    static final class RedisKeysOf implements AutoCloseable {
        private final RedisClient client = RedisClient.create(REDIS.uri());
        private final StatefulRedisConnection<String, String> connection = client.connect();
        private final String pattern;

        RedisKeysOf(String pattern) {
            this.pattern = pattern;
        }

        /** The keys that match now. */
        List<String> now() {
            return connection.sync().keys(pattern);
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown();
        }
    }
}
