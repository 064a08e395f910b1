package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobQueue;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code produce}, {@code worker} and {@code stats} on a real Redis: workers as processes of their own, stopped with
 * SIGTERM, and in this JVM where no signal is needed.
 */
class QueueCommandsOnRedisTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final int SIGTERM_STATUS = 128 + 15;

    private static final RedisServer REDIS = RedisServer.shared();

    @TempDir
    Path dir;

    /** What one command line printed, and its exit status. */
    private record Ran(int status, String out, String err) {
        JsonNode json() throws IOException {
            assertThat(out).as("one line").hasLineCount(1);
            return JSON.readTree(out);
        }
    }

    private static Ran run(Main.Lifetime lifetime, String... args) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl, serve) -> {
                    throw new AssertionError("no demo is to run");
                },
                lifetime);
        return new Ran(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Ran run(String... args) throws InterruptedException {
        return run(
                start -> {
                    throw new AssertionError("no worker is to start");
                },
                args);
    }

    /** {@code command} on queue {@code queue} of the test's Redis, with {@code options}. */
    private static String[] on(String queue, String command, String... options) {
        List<String> args = new ArrayList<>(List.of(command, "--redis", REDIS.uri(), "--queue", queue));
        args.addAll(List.of(options));
        return args.toArray(String[]::new);
    }

    private static String newQueue() {
        return "cli-" + QUEUES.incrementAndGet();
    }

    private static JsonNode stats(String queue) throws Exception {
        Ran stats = run(on(queue, "stats"));
        assertThat(stats.status()).as(stats.err()).isZero();
        return stats.json();
    }

    private static long completedTotal(String queue) throws Exception {
        return stats(queue).at("/totals/completed").asLong();
    }

    /** A worker process: {@code ./sluice worker} on {@code queue} with {@code options}, its output in files. */
    private record WorkerProcess(Process process, Path out, Path err) {
        String id() {
            return ":" + process.pid();
        }

        List<String> lines() throws IOException {
            return Files.readAllLines(out);
        }

        String errText() throws IOException {
            return Files.readString(err);
        }
    }

    private WorkerProcess startWorker(String name, String queue, String... options) throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(on(queue, "worker", options)));
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        return new WorkerProcess(process, out, err);
    }

    private static void awaitWorking(WorkerProcess worker) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    assertThat(worker.process().isAlive())
                            .as("worker alive: %s", worker.errText())
                            .isTrue();
                    return worker.errText().contains("working on queue");
                });
    }

    /** Sends SIGTERM and waits for the graceful close; the JVM exits as SIGTERM asks. */
    private static void terminate(WorkerProcess worker) throws Exception {
        worker.process().destroy();
        assertThat(worker.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(worker.process().exitValue()).as(worker.errText()).isEqualTo(SIGTERM_STATUS);
        assertThat(worker.errText()).contains("stopped; ");
    }

    @Test
    void twoWorkerProcessesEchoEveryProducedJobOnceAndStatsCountThem() throws Exception {
        String queue = newQueue();
        int jobs = 600;
        List<WorkerProcess> workers = new ArrayList<>();
        try {
            for (String name : List.of("a", "b")) {
                workers.add(startWorker(
                        name, queue, "--echo", "--concurrency", "4", "--processor", "sleep:10", "--lease-ms", "5000"));
            }
            workers.forEach(QueueCommandsOnRedisTest::awaitWorking);

            Ran produced = run(on(
                    queue,
                    "produce",
                    "--count",
                    "" + jobs,
                    "--groups",
                    "3",
                    "--id-prefix",
                    "job-",
                    "--payload-bytes",
                    "10"));
            assertThat(produced.status()).as(produced.err()).isZero();
            JsonNode summary = produced.json();
            assertThat(summary.get("added").asLong()).isEqualTo(jobs);
            assertThat(summary.get("duplicates").asLong()).isZero();
            assertThat(summary.get("seconds").isNumber()).isTrue();
            JsonNode again = run(on(queue, "produce", "--count", "" + jobs, "--groups", "3", "--id-prefix", "job-"))
                    .json();
            assertThat(again.get("added").asLong()).as("the same ids again").isZero();
            assertThat(again.get("duplicates").asLong()).isEqualTo(jobs);

            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> completedTotal(queue) >= jobs / 3);
            terminate(workers.get(0)); // while it runs jobs: they finish, and are echoed, before it exits
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> completedTotal(queue) == jobs);
            terminate(workers.get(1));

            Set<String> echoed = new HashSet<>();
            for (WorkerProcess worker : workers) {
                List<String> lines = worker.lines();
                assertThat(lines).as("each worker ran some of the jobs").isNotEmpty();
                for (String line : lines) {
                    JsonNode echo = JSON.readTree(line);
                    String id = echo.get("id").asText();
                    assertThat(echoed.add(id)).as("%s echoed once", id).isTrue();
                    int number = Integer.parseInt(id.substring("job-".length()));
                    assertThat(echo.get("group").asText()).isEqualTo("g" + number % 3);
                    assertThat(echo.get("attempt").asInt()).isEqualTo(1);
                    assertThat(echo.get("worker").asText()).endsWith(worker.id());
                    assertThat(echo.get("finishedAt").asLong())
                            .isGreaterThanOrEqualTo(echo.get("startedAt").asLong() + 10);
                    assertThat(echo.fieldNames())
                            .toIterable()
                            .containsExactly("id", "group", "attempt", "worker", "startedAt", "finishedAt");
                }
            }
            assertThat(echoed).hasSize(jobs);

            JsonNode stats = stats(queue);
            assertThat(stats.get("counts").toString())
                    .isEqualTo("{\"waiting\":0,\"delayed\":0,\"active\":0,\"completed\":600,\"failed\":0}");
            assertThat(stats.get("totals").toString()).isEqualTo("{\"added\":600,\"completed\":600,\"failed\":0}");
            assertThat(stats.at("/ungrouped/totals/added").asLong()).isZero();
            assertThat(stats.get("groups").size()).isEqualTo(3);
            for (String group : List.of("g0", "g1", "g2")) {
                assertThat(stats.at("/groups/" + group + "/totals").toString())
                        .isEqualTo("{\"added\":200,\"completed\":200,\"failed\":0}");
                assertThat(stats.at("/groups/" + group + "/counts/completed").asLong())
                        .isEqualTo(200);
            }
        } finally {
            for (WorkerProcess worker : workers) {
                worker.process().destroyForcibly();
            }
        }
    }

    @Test
    void aWorkerEchoesOnlyCompletionsNotTheAttemptsThatFailedOrWereRateLimited() throws Exception {
        String queue = newQueue();
        int jobs = 60;
        Ran produced = run(on(queue, "produce", "--count", "" + jobs, "--group", "acme", "--attempts", "30"));
        assertThat(produced.json().get("added").asLong()).isEqualTo(jobs);
        List<JsonNode> lines = new ArrayList<>();
        // one worker fails attempts until half the jobs are done, then another rate-limits some for the rest
        for (String processor : List.of("fail:0.3", "ratelimit:0.3:1")) {
            long until = processor.startsWith("fail") ? jobs / 2 : jobs;
            Ran worker = run(
                    start -> {
                        Main.Running running = start.start();
                        Awaitility.await()
                                .atMost(Duration.ofSeconds(60))
                                .pollInterval(Duration.ofMillis(20))
                                .until(() -> completedTotal(queue) >= until);
                        running.stop();
                    },
                    on(queue, "worker", "--echo", "--concurrency", "3", "--processor", processor));
            assertThat(worker.status()).as(worker.err()).isZero();
            assertThat(worker.err()).contains("working on queue '" + queue + "'", "stopped; ");
            for (String line : worker.out().lines().toList()) {
                lines.add(JSON.readTree(line));
            }
        }

        assertThat(lines).hasSize(jobs);
        assertThat(lines.stream().map(l -> l.get("id").asText()).distinct()).hasSize(jobs);
        assertThat(lines)
                .allSatisfy(line -> assertThat(line.get("group").asText()).isEqualTo("acme"));
        assertThat(lines.stream().mapToInt(l -> l.get("attempt").asInt()).max().orElseThrow())
                .as("fail:0.3 failed some attempts, which were retried")
                .isGreaterThan(1);
        JsonNode stats = stats(queue);
        assertThat(stats.get("totals").toString()).isEqualTo("{\"added\":60,\"completed\":60,\"failed\":0}");
        assertThat(stats.at("/groups/acme/totals/completed").asLong()).isEqualTo(jobs);
    }

    @Test
    void theWorkersLimitsAreSetOnTheQueueForEveryProcess() throws Exception {
        String queue = newQueue();
        Ran worker = run(
                start -> {
                    Main.Running running = start.start();
                    try (Sluice other = RedisSluice.connect(REDIS.uri())) {
                        JobQueue<String> seen = QueueCommands.open(other, queue);
                        assertThat(seen.groupLimits("any"))
                                .isEqualTo(GroupLimits.builder()
                                        .rate(SlidingWindowLog.of(5, Duration.ofMillis(500)))
                                        .concurrency(2)
                                        .build());
                    } finally {
                        running.stop();
                    }
                },
                on(queue, "worker", "--rate", "100/1m", "--group-rate", "5/500ms", "--group-concurrency", "2"));
        assertThat(worker.status()).as(worker.err()).isZero();
        RedisClient client = RedisClient.create(REDIS.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            assertThat(connection.sync().hget("sluice:queue:{" + queue + "}:m", "rate"))
                    .as("the queue's rate as the engine stores it: a sliding log of 100 in 60 s")
                    .endsWith("|L,100,60000000000");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void statsOfAQueueTheEngineRefusesIsAUsageError() throws Exception {
        Ran stats = run(on("no spaces", "stats"));
        assertThat(stats.status()).isEqualTo(Main.USAGE_ERROR);
        assertThat(stats.err()).startsWith("sluice: ").contains("no spaces").hasLineCount(1);
        assertThat(stats.out()).isEmpty();
    }
}
