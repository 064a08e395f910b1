package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.demo.Options.UsageException;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The command line of {@code produce}, {@code worker} and {@code stats} without a Redis: options, their values, and
 * the one line each problem prints.
 */
class QueueCommandLineTest {
    private static final String REDIS = "redis://127.0.0.1:6379";
    private static final String NL = System.lineSeparator();

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws InterruptedException {
        out.reset();
        err.reset();
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                (seconds, redisUrl, serve) -> {
                    throw new AssertionError("no demo is to run");
                },
                start -> {
                    start.start(); // with no Redis there, it throws
                    throw new AssertionError("no worker is to start");
                });
    }

    /** Runs {@code args}, which must fail with exit status {@code status} and exactly the line {@code problem}. */
    private void assertFails(int status, String problem, String... args) throws InterruptedException {
        assertThat(run(args)).as(String.join(" ", args)).isEqualTo(status);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .as(String.join(" ", args))
                .isEqualTo("sluice: " + problem + NL);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    private void assertUsageError(String problem, String... args) throws InterruptedException {
        assertFails(Main.USAGE_ERROR, problem, args);
    }

    /** {@code command} on queue {@code q} of {@link #REDIS}, with {@code options}. */
    private static String[] onQueue(String command, String... options) {
        String[] args = new String[options.length + 5];
        System.arraycopy(new String[] {command, "--redis", REDIS, "--queue", "q"}, 0, args, 0, 5);
        System.arraycopy(options, 0, args, 5, options.length);
        return args;
    }

    @Test
    void everyQueueCommandNeedsTheRedisAndTheQueue() throws InterruptedException {
        for (String command : new String[] {"produce", "worker", "stats"}) {
            assertUsageError(
                    command + " needs --redis URL (a Redis URL such as redis://localhost:6379)",
                    command,
                    "--queue",
                    "q");
            assertUsageError(
                    command + " needs --queue NAME (the queue's name: letters, digits, . _ : -)",
                    command,
                    "--redis",
                    REDIS);
        }
    }

    @Test
    void produceNeedsACountAndNamesBadValues() throws InterruptedException {
        assertUsageError("produce needs --count N (a whole number from 1 to 1000000000)", onQueue("produce"));
        for (String bad : new String[] {"0", "-1", "ten", "1.5", "1000000001"}) {
            assertUsageError(
                    "--count must be a whole number from 1 to 1000000000, was '" + bad + "'",
                    onQueue("produce", "--count", bad));
        }
        assertUsageError(
                "--payload-bytes must be a whole number from 0 to 524288, was '524289'",
                onQueue("produce", "--count", "1", "--payload-bytes", "524289"));
        assertUsageError(
                "--group and --groups cannot be given together: one group, or K groups g0..g(K-1)",
                onQueue("produce", "--count", "1", "--group", "a", "--groups", "2"));
        assertUsageError("--attempts needs a value: a whole number from 1 to 1000000", "produce", "--attempts");
        assertUsageError("--count is given twice", "produce", "--count", "1", "--count", "2");
        assertUsageError(
                "unknown option '--colour' for produce (options: --redis URL, --queue NAME, --count N, --group G,"
                        + " --groups K, --delay-ms D, --attempts A, --payload-bytes B, --id-prefix P)",
                "produce",
                "--colour",
                "red");
    }

    @Test
    void workerNamesBadProcessorsRatesAndLimits() throws InterruptedException {
        for (String bad : new String[] {
            "nop",
            "noop:1",
            "sleep",
            "sleep:-1",
            "sleep:3600001",
            "fail:2",
            "fail:-0.1",
            "fail:NaN",
            "ratelimit:0.5",
            "ratelimit:x:10",
            "ratelimit:0.5:10:1"
        }) {
            assertUsageError(
                    "--processor must be " + Processors.ALLOWED + ", was '" + bad + "'",
                    onQueue("worker", "--processor", bad));
        }
        for (String bad : new String[] {"10", "0/1s", "10/0s", "10/2d", "10/25h", "1000001/1s", "10/1 s", "ten/s"}) {
            for (String option : new String[] {"--rate", "--group-rate"}) {
                assertUsageError(
                        option + " must be " + QueueCommands.RATE_ALLOWED + ", was '" + bad + "'",
                        onQueue("worker", option, bad));
            }
        }
        assertUsageError(
                "--lease-ms must be a whole number from 1000 to 86400000, was '999'",
                onQueue("worker", "--lease-ms", "999"));
        assertUsageError(
                "--concurrency must be a whole number from 1 to 100000, was '0'",
                onQueue("worker", "--concurrency", "0"));
        assertUsageError(
                "unknown option '--count' for worker (options: --redis URL, --queue NAME, --concurrency C,"
                        + " --processor P, --echo, --rate N/DURATION, --group-rate N/DURATION, --group-concurrency K,"
                        + " --lease-ms L)",
                "worker",
                "--count",
                "1");
    }

    @Test
    void statsTakesOnlyTheRedisAndTheQueue() throws InterruptedException {
        assertUsageError(
                "unknown option 'extra' for stats (options: --redis URL, --queue NAME)", onQueue("stats", "extra"));
    }

    @Test
    void aMalformedRedisUrlIsAUsageError() throws InterruptedException {
        assertThat(run("stats", "--redis", "http://localhost:6379", "--queue", "q"))
                .isEqualTo(Main.USAGE_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("sluice: Redis URL must start with redis://")
                .endsWith("was 'http://localhost:6379'" + NL)
                .hasLineCount(1);
        assertThat(run("produce", "--redis", "redis://localhost:port", "--queue", "q", "--count", "1"))
                .isEqualTo(Main.USAGE_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("sluice: Redis URL 'redis://localhost:port' is malformed")
                .hasLineCount(1);
    }

    @Test
    void anUnreachableRedisFailsInOneLine() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        } // nothing listens there now
        for (String[] command : new String[][] {
            {"stats"}, {"produce", "--count", "1"}, {"worker"},
        }) {
            String[] args = new String[command.length + 4];
            System.arraycopy(command, 0, args, 0, command.length);
            System.arraycopy(
                    new String[] {"--redis", "redis://127.0.0.1:" + port, "--queue", "q"}, 0, args, command.length, 4);
            assertThat(run(args)).as(command[0]).isEqualTo(Main.FAILURE);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .as(command[0])
                    .startsWith("sluice: cannot connect to Redis")
                    .contains("127.0.0.1:" + port)
                    .hasLineCount(1);
            assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        }
    }

    @Test
    void helpOfEachCommandPrintsTheUsage() throws InterruptedException {
        for (String command : new String[] {"produce", "worker", "stats"}) {
            assertThat(run(command, "--help")).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .startsWith("usage: ./sluice <command>")
                    .contains("produce --redis URL --queue NAME --count N")
                    .contains("worker --redis URL --queue NAME [--concurrency C]")
                    .contains("stats --redis URL --queue NAME");
            assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        }
    }

    @Test
    void ratesAreASlidingLogOfNInEveryDuration() throws UsageException {
        assertThat(rate("10/s")).isEqualTo(SlidingWindowLog.of(10, Duration.ofSeconds(1)));
        assertThat(rate("10/1s")).isEqualTo(SlidingWindowLog.of(10, Duration.ofSeconds(1)));
        assertThat(rate("50/250ms")).isEqualTo(SlidingWindowLog.of(50, Duration.ofMillis(250)));
        assertThat(rate("500/1m")).isEqualTo(SlidingWindowLog.of(500, Duration.ofMinutes(1)));
        assertThat(rate("1000000/24h")).isEqualTo(SlidingWindowLog.of(1_000_000, Duration.ofDays(1)));
        assertThatThrownBy(() -> rate("1/25h")).isInstanceOf(UsageException.class);
    }

    private static Object rate(String text) throws UsageException {
        return QueueCommands.rate(
                Options.parse("worker", WorkerCommand.OPTIONS, new String[] {"--rate", text}, 0), "--rate");
    }

    @Test
    void theProcessorsDoWhatTheySay() throws Exception {
        JobContext<String> job = new JobContext<>() {
            @Override
            public Job<String> job() {
                throw new UnsupportedOperationException();
            }

            @Override
            public int attempt() {
                return 1;
            }

            @Override
            public void progress(int percent) {}

            @Override
            public boolean isCancelled() {
                return false;
            }
        };
        assertThat(Processors.parse("noop").process(job)).isEqualTo(Result.done());
        assertThat(Processors.parse("sleep:0").process(job)).isEqualTo(Result.done());
        assertThat(Processors.parse("fail:0").process(job)).isEqualTo(Result.done());
        Processor<String> failing = Processors.parse("fail:1");
        assertThatThrownBy(() -> failing.process(job))
                .isInstanceOf(Processors.FailedOnPurpose.class)
                .hasMessage("failed on purpose (--processor fail:1)");
        assertThat(Processors.parse("ratelimit:1:250").process(job))
                .isEqualTo(Result.rateLimited(Result.Scope.GROUP, Duration.ofMillis(250)));
        assertThat(Processors.parse("ratelimit:0:250").process(job)).isEqualTo(Result.done());
        int failures = 0;
        Processor<String> half = Processors.parse("fail:0.5");
        for (int i = 0; i < 1_000; i++) {
            try {
                half.process(job);
            } catch (Processors.FailedOnPurpose e) {
                failures++;
            }
        }
        assertThat(failures).as("fail:0.5 in 1,000 attempts").isBetween(350, 650);
    }

    @Test
    void theDemoTakesItsOptionsAsBefore() throws InterruptedException {
        assertUsageError(
                "unknown option '--queue' for demo (options: --seconds N, --redis URL, --serve, --port P)",
                "demo",
                "--queue",
                "q");
    }
}
