package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.demo.Options.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The command line of the commands that look after queues ({@code queues}, {@code jobs}, {@code job}, {@code retry},
 * ...) without a Redis: their options, the job id they take, and the one line each problem prints. Every problem
 * here is found before anything connects.
 */
class AdminCommandLineTest {
    private static final String REDIS = "redis://127.0.0.1:6379";
    private static final String NL = System.lineSeparator();
    private static final String STATES = "one of waiting, delayed, active, completed, failed";

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
                    throw new AssertionError("no worker is to start");
                });
    }

    private void assertUsageError(String problem, String... args) throws InterruptedException {
        assertThat(run(args)).as(String.join(" ", args)).isEqualTo(Main.USAGE_ERROR);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .as(String.join(" ", args))
                .isEqualTo("sluice: " + problem + NL);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    /** {@code command} on queue {@code q} of {@link #REDIS}, with {@code options}. */
    private static String[] onQueue(String command, String... options) {
        List<String> args = new ArrayList<>(List.of(command, "--redis", REDIS, "--queue", "q"));
        args.addAll(List.of(options));
        return args.toArray(String[]::new);
    }

    @Test
    void everyCommandNeedsTheRedisAndEachButQueuesTheQueue() throws InterruptedException {
        assertThat(AdminCommands.names())
                .containsExactly(
                        "queues",
                        "jobs",
                        "job",
                        "retry",
                        "remove",
                        "promote",
                        "pause",
                        "resume",
                        "clean",
                        "drain",
                        "obliterate",
                        "groups",
                        "workers");
        for (String command : AdminCommands.names()) {
            assertUsageError(command + " needs --redis URL (a Redis URL such as redis://localhost:6379)", command);
            if (!command.equals("queues")) {
                assertUsageError(
                        command + " needs --queue NAME (the queue's name: letters, digits, . _ : -)",
                        command,
                        "--redis",
                        REDIS);
            }
        }
        assertUsageError(
                "unknown option '--queue' for queues (options: --redis URL)",
                "queues",
                "--redis",
                REDIS,
                "--queue",
                "q");
    }

    @Test
    void unknownOptionsAreNamedWithTheOptionsTheCommandTakes() throws InterruptedException {
        assertUsageError(
                "unknown option '--colour' for jobs (options: --redis URL, --queue NAME, --state STATE, --group G,"
                        + " --offset K, --limit N)",
                onQueue("jobs", "--state", "failed", "--colour", "red"));
        assertUsageError(
                "unknown option '--all' for retry (options: --redis URL, --queue NAME, --all-failed, --completed)",
                onQueue("retry", "--all"));
        assertUsageError(
                "unknown option '--older' for clean (options: --redis URL, --queue NAME, --state STATE,"
                        + " --older-than DURATION)",
                onQueue("clean", "--older", "1d"));
        assertUsageError(
                "unknown option '--groups' for pause (options: --redis URL, --queue NAME, --group G)",
                onQueue("pause", "--groups", "a"));
        assertUsageError(
                "unknown option 'extra' for workers (options: --redis URL, --queue NAME)", onQueue("workers", "extra"));
        assertUsageError(
                "unknown option 'now' for drain (options: --redis URL, --queue NAME, --delayed)",
                onQueue("drain", "now"));
        assertUsageError("--force is given twice", onQueue("obliterate", "--force", "--force"));
        assertUsageError("--group needs a value: a group name", onQueue("resume", "--group"));
    }

    @Test
    void aStateMustBeOneTheCommandAllows() throws InterruptedException {
        assertUsageError("jobs needs --state STATE (" + STATES + ")", onQueue("jobs"));
        for (String bad : new String[] {"done", "fail", "", "waiting,failed"}) {
            assertUsageError("--state must be " + STATES + ", was '" + bad + "'", onQueue("jobs", "--state", bad));
        }
        assertUsageError("clean needs --state STATE (completed or failed)", onQueue("clean"));
        for (String bad : new String[] {"waiting", "delayed", "active", "gone"}) {
            assertUsageError(
                    "--state must be completed or failed, was '" + bad + "'", onQueue("clean", "--state", bad));
        }
    }

    @Test
    void theCommandsOnAJobTakeExactlyOneId() throws InterruptedException {
        for (String command : new String[] {"job", "remove", "promote"}) {
            assertUsageError(command + " needs ID (a job's id)", onQueue(command));
            assertUsageError(command + " takes one ID, was given 'a' and 'b'", onQueue(command, "a", "b"));
            assertUsageError(command + " takes one ID, was given 'a' and 'b'", onQueue(command, "a", "--", "b"));
            assertUsageError(
                    "unknown option '-x' for " + command + " (options: --redis URL, --queue NAME)",
                    onQueue(command, "-x"));
        }
        assertUsageError("retry takes one ID, was given '7' and '8'", onQueue("retry", "7", "8"));
        assertUsageError(
                "unknown option '7' for jobs (options: --redis URL, --queue NAME, --state STATE, --group G, --offset K,"
                        + " --limit N)",
                onQueue("jobs", "--state", "failed", "7"));
    }

    @Test
    void anIdThatBeginsWithAHyphenComesAfterTwoHyphens() throws UsageException {
        AdminCommands.Command job = AdminCommands.named("job");
        Options options =
                Options.parse("job", job.options(), job.positional(), new String[] {"--queue", "q", "--", "-5"}, 0);
        assertThat(options.requiredPositional()).isEqualTo("-5");
        assertThat(options.text("--queue")).isEqualTo("q");
        Options plain = Options.parse("job", job.options(), job.positional(), new String[] {"42", "--queue", "q"}, 0);
        assertThat(plain.positional()).isEqualTo("42");
        Options none = Options.parse("job", job.options(), job.positional(), new String[] {"--queue", "q"}, 0);
        assertThat(none.positional()).isNull();
    }

    @Test
    void retryTakesAnIdOrAllFailedJobs() throws InterruptedException {
        assertUsageError("retry needs ID (a job's id) or --all-failed", onQueue("retry"));
        assertUsageError("retry needs ID (a job's id) or --all-failed", onQueue("retry", "--completed"));
        assertUsageError("retry takes ID or --all-failed, not both", onQueue("retry", "7", "--all-failed"));
        assertUsageError(
                "--completed retries one completed job: give its ID, not --all-failed",
                onQueue("retry", "--all-failed", "--completed"));
    }

    @Test
    void limitsAndOffsetsMustBeInRange() throws InterruptedException {
        for (String bad : new String[] {"0", "1001", "-1", "ten", "1.5"}) {
            assertUsageError(
                    "--limit must be a whole number from 1 to 1000, was '" + bad + "'",
                    onQueue("jobs", "--state", "failed", "--limit", bad));
            assertUsageError(
                    "--limit must be a whole number from 1 to 1000, was '" + bad + "'",
                    onQueue("groups", "--limit", bad));
        }
        assertUsageError(
                "--offset must be a whole number from 0 to 1000000000, was '-1'",
                onQueue("jobs", "--state", "failed", "--offset", "-1"));
    }

    @Test
    void anAgeIsAWholeNumberOfAUnitUpToTenYears() throws Exception {
        String allowed = "a whole number of ms, s, m, h or d up to 3650d (10s, 5m, 2h, 1d), or 0";
        for (String bad : new String[] {"10", "10w", "1.5h", "-1s", "3651d", "87601h", "1 d", "s", "99999999999ms"}) {
            assertUsageError(
                    "--older-than must be " + allowed + ", was '" + bad + "'",
                    onQueue("clean", "--state", "failed", "--older-than", bad));
        }
        assertThat(age("0")).isZero();
        assertThat(age(null)).isZero();
        assertThat(age("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(age("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(age("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(age("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(age("1d")).isEqualTo(Duration.ofDays(1));
        assertThat(age("3650d")).isEqualTo(Duration.ofDays(3650));
        assertThatThrownBy(() -> age("0s0")).isInstanceOf(UsageException.class);
    }

    private static Duration age(String text) throws UsageException {
        AdminCommands.Command clean = AdminCommands.named("clean");
        String[] args = text == null ? new String[0] : new String[] {"--older-than", text};
        return AdminCommands.age(Options.parse("clean", clean.options(), null, args, 0), "--older-than");
    }

    @Test
    void aMissingQueueIsNamedWithAtMostTwentyOthers() {
        assertThat(QueueCommands.doesNotExist("typo", List.of())).isEqualTo("queue 'typo' does not exist (no queues)");
        assertThat(QueueCommands.doesNotExist("typo", List.of("a", "b", "c")))
                .isEqualTo("queue 'typo' does not exist (queues: a, b, c)");
        List<String> twenty = IntStream.range(0, 20).mapToObj(i -> "q" + i).toList();
        assertThat(QueueCommands.doesNotExist("typo", twenty))
                .isEqualTo("queue 'typo' does not exist (queues: " + String.join(", ", twenty) + ")");
        List<String> many = IntStream.range(0, 25).mapToObj(i -> "q" + i).toList();
        assertThat(QueueCommands.doesNotExist("typo", many))
                .isEqualTo("queue 'typo' does not exist (queues: " + String.join(", ", many.subList(0, 20))
                        + " and 5 more)");
    }

    @Test
    void helpOfEachCommandPrintsTheUsageWithEveryCommand() throws InterruptedException {
        for (String command : AdminCommands.names()) {
            assertThat(run(command, "--help")).as(command).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .startsWith("usage: ./sluice <command>")
                    .contains(
                            "queues --redis URL",
                            "jobs --redis URL --queue NAME --state STATE [--group G] [--offset K] [--limit N]",
                            "job --redis URL --queue NAME ID",
                            "retry --redis URL --queue NAME (ID [--completed] | --all-failed)",
                            "remove --redis URL --queue NAME ID",
                            "promote --redis URL --queue NAME ID",
                            "pause --redis URL --queue NAME [--group G]",
                            "resume --redis URL --queue NAME [--group G]",
                            "clean --redis URL --queue NAME --state completed|failed [--older-than DURATION]",
                            "drain --redis URL --queue NAME [--delayed]",
                            "obliterate --redis URL --queue NAME [--force]",
                            "groups --redis URL --queue NAME [--prefix P] [--after G] [--limit N]",
                            "workers --redis URL --queue NAME");
            assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        }
    }

    @Test
    void anUnreachableRedisFailsInOneLine() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        } // nothing listens there now
        String redis = "redis://127.0.0.1:" + port;
        for (String[] command : new String[][] {
            {"queues", "--redis", redis},
            {"jobs", "--redis", redis, "--queue", "q", "--state", "failed"},
            {"job", "--redis", redis, "--queue", "q", "7"},
            {"retry", "--redis", redis, "--queue", "q", "--all-failed"},
            {"pause", "--redis", redis, "--queue", "q"},
            {"obliterate", "--redis", redis, "--queue", "q", "--force"},
            {"workers", "--redis", redis, "--queue", "q"},
        }) {
            assertThat(run(command)).as(command[0]).isEqualTo(Main.FAILURE);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .as(command[0])
                    .startsWith("sluice: cannot connect to Redis")
                    .contains("127.0.0.1:" + port)
                    .hasLineCount(1);
            assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        }
    }
}
