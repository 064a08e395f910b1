package dev.sluice.redis.internal;

import static dev.sluice.redis.internal.ManyProcessesWindows.maxInAlignedWindow;
import static dev.sluice.redis.internal.ManyProcessesWindows.maxInClosedSpan;
import static dev.sluice.redis.internal.ManyProcessesWindows.maxInHalfOpenSpan;
import static dev.sluice.redis.internal.ManyProcessesWindows.maxOverlap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.redis.ChildJvm;
import dev.sluice.testkit.redis.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVM processes (3, each with {@value #THREADS} threads per limiter) hammering one key of every policy on
 * one Redis: every grant is logged with the Redis server time it was made at, and the most grants in any window
 * of the policy's length never exceed its limit. The same holds with the processes' clocks skewed by -5 s, 0 and
 * +5 s, since the scripts read Redis TIME; the control shows the check would see skew: scripts made to take the
 * skewed caller clocks break the token bucket's bound.
 */
@Tag("slow")
class ManyProcessesTest {
    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final long RUN_MILLIS = 2_500;
    private static final long[] NO_SKEW = {0, 0, 0};
    private static final long[] SKEW_MILLIS = {-5_000, 0, 5_000};
    private static final Duration CHILD_TIMEOUT = Duration.ofSeconds(60);

    private static RedisServer redis;

    @TempDir
    Path dir;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void threeProcessesHammeringOneKeyNeverExceedAnyPolicysLimit() throws Exception {
        Map<HammerPolicy, Merged> runs = hammer("same", NO_SKEW, false, List.of(HammerPolicy.values()));

        assertWithinLimits(runs);
    }

    @Test
    void clocksSkewedByFiveSecondsEitherWayChangeNothing() throws Exception {
        Map<HammerPolicy, Merged> runs = hammer("skewed", SKEW_MILLIS, false, List.of(HammerPolicy.values()));

        assertWithinLimits(runs);
    }

    /**
     * The control: the check above can see skew. The same children, made to run the scripts on their skewed
     * clocks: the bucket remembers when it is full again, so each child let go with a clock 5 s ahead of the one
     * before finds it full and takes a whole burst again (and the ones behind it are then starved).
     */
    @Test
    void scriptsTakingSkewedCallerClocksBreakTheTokenBucketBound() throws Exception {
        Merged run = hammer("control", SKEW_MILLIS, true, List.of(HammerPolicy.TOKEN_BUCKET))
                .get(HammerPolicy.TOKEN_BUCKET);

        TokenBucket bucket = (TokenBucket) HammerPolicy.TOKEN_BUCKET.policy;
        long length = bucket.refillPeriod().toNanos();
        int bound = (int) (bucket.capacity() + length / bucket.nanosPerPermit());
        assertThat(run.degraded)
                .as("decisions made while Redis was unavailable")
                .isZero();
        assertThat(maxInClosedSpan(run.grants, length))
                .as("the most grants in any %s (bound %d, %s)", bucket.refillPeriod(), bound, run)
                .isGreaterThan(bound);
    }

    /** The window arithmetic the checks rest on, on times whose answers are known. */
    @Test
    void windowCountsAreExact() {
        long[] times = {0, 10, 10, 99, 100, 100, 150, 199, 200, 350};

        assertThat(maxInClosedSpan(times, 100)).isEqualTo(6); // [0, 100]
        assertThat(maxInClosedSpan(times, 0)).isEqualTo(2);
        assertThat(maxInHalfOpenSpan(times, 100)).isEqualTo(5); // [10, 110)
        assertThat(maxInHalfOpenSpan(times, 1)).isEqualTo(2);
        assertThat(maxInAlignedWindow(times, 100)).isEqualTo(4); // [100, 200): 100, 100, 150, 199
        assertThat(maxInAlignedWindow(new long[] {-5, -1, 0}, 5)).isEqualTo(2);
        assertThat(maxInAlignedWindow(new long[0], 5)).isZero();
        assertThat(maxOverlap(List.of(new long[] {0, 10}, new long[] {5, 15}, new long[] {10, 20})))
                .as("one ending where another starts is not counted with it")
                .isEqualTo(2);
        assertThat(maxOverlap(List.of(new long[] {0, 10}, new long[] {1, 9}, new long[] {2, 8}, new long[] {30, 40})))
                .isEqualTo(3);
    }

    private static void assertWithinLimits(Map<HammerPolicy, Merged> runs) {
        SoftAssertions softly = new SoftAssertions();
        for (HammerPolicy kind : HammerPolicy.values()) {
            Merged run = runs.get(kind);
            softly.assertThat(run.degraded)
                    .as("%s: decisions made while Redis was unavailable", kind)
                    .isZero();
            softly.assertThat(run.attempts)
                    .as("%s: attempts, of which every one was granted (nothing was limited)", kind)
                    .isGreaterThan(run.grants.length + run.leases.size());
            switch (run.policy.policy) {
                case TokenBucket bucket ->
                    assertBucket(softly, run, bucket.capacity(), bucket.nanosPerPermit(), bucket.refillPeriod());
                case Gcra gcra -> assertBucket(softly, run, gcra.burst(), gcra.nanosPerPermit(), gcra.period());
                case SlidingWindowLog log -> {
                    long window = log.window().toNanos();
                    softly.assertThat(maxInHalfOpenSpan(run.grants, window))
                            .as("%s: the most grants in any %s (%s)", kind, log.window(), run)
                            .isLessThanOrEqualTo((int) log.limit());
                    assertReached(softly, run, maxInHalfOpenSpan(run.grants, window), log.limit(), log.window());
                }
                case FixedWindow fixed -> assertWindows(softly, run, fixed.limit(), fixed.window());
                case SlidingWindowCounter counter -> assertWindows(softly, run, counter.limit(), counter.window());
                case ConcurrencyLimit concurrency -> {
                    int most = maxOverlap(run.leases);
                    softly.assertThat(run.releaseFailures)
                            .as("%s: leases whose release failed", kind)
                            .isZero();
                    softly.assertThat(most)
                            .as("%s: the most leases held at once (%s)", kind, run)
                            .isLessThanOrEqualTo((int) concurrency.maxConcurrent());
                    softly.assertThat(most)
                            .as("%s: the limit was reached: leases held at once (%s)", kind, run)
                            .isEqualTo((int) concurrency.maxConcurrent());
                }
                default -> throw new IllegalStateException("no check for " + run.policy);
            }
        }
        softly.assertAll();
    }

    /** A token bucket or GCRA: over any span {@code t}, at most {@code capacity + t / interval} grants. */
    private static void assertBucket(SoftAssertions softly, Merged run, long capacity, long interval, Duration period) {
        for (long length : new long[] {interval, Duration.ofMillis(100).toNanos(), period.toNanos()}) {
            softly.assertThat(maxInClosedSpan(run.grants, length))
                    .as("%s: the most grants in any %s (%s)", run.policy, Duration.ofNanos(length), run)
                    .isLessThanOrEqualTo((int) (capacity + length / interval));
        }
        assertReached(softly, run, maxInClosedSpan(run.grants, period.toNanos()), capacity, period);
    }

    /**
     * A fixed window or sliding window counter: every aligned window holds at most the limit; a sliding one at
     * most twice that.
     */
    private static void assertWindows(SoftAssertions softly, Merged run, long limit, Duration window) {
        long length = window.toNanos();
        softly.assertThat(maxInAlignedWindow(run.grants, length))
                .as("%s: the most grants in one aligned %s (%s)", run.policy, window, run)
                .isLessThanOrEqualTo((int) limit);
        softly.assertThat(maxInHalfOpenSpan(run.grants, length))
                .as("%s: the most grants in any %s (%s)", run.policy, window, run)
                .isLessThanOrEqualTo((int) (2 * limit));
        assertReached(softly, run, maxInHalfOpenSpan(run.grants, length), limit, window);
    }

    /**
     * The processes pushed the limit all the way: some span of {@code length} held {@code limit} grants, so the
     * bounds above were tested at the limit, not below it. Unlike a share of the run's possible grants, this holds
     * however slowly a loaded machine schedules the processes, as long as each keeps asking.
     */
    private static void assertReached(SoftAssertions softly, Merged run, int most, long limit, Duration length) {
        softly.assertThat(most)
                .as("%s: the limit was reached: grants in the fullest %s (%s)", run.policy, length, run)
                .isGreaterThanOrEqualTo((int) limit);
    }

    /**
     * Runs {@link #PROCESSES} children, the i-th with its clock offset by {@code offsetsMillis[i]}, hammering the
     * given policies together for {@link #RUN_MILLIS}, and merges what they logged. All start, connect and load
     * the script before the first is let go; the others are let go one by one, each once the one before has been
     * granted something and then denied, and they overlap for almost the whole run.
     */
    private Map<HammerPolicy, Merged> hammer(
            String run, long[] offsetsMillis, boolean scriptClock, List<HammerPolicy> policies) throws Exception {
        String prefix = "mp-" + run + "-" + System.nanoTime();
        List<Process> children = new ArrayList<>();
        List<Path> outs = new ArrayList<>();
        List<Path> errs = new ArrayList<>();
        try {
            for (int i = 0; i < PROCESSES; i++) {
                Path out = dir.resolve(run + "-" + i + ".grants");
                Path err = dir.resolve(run + "-" + i + ".stderr");
                outs.add(out);
                errs.add(err);
                List<String> command = List.of(
                        ChildJvm.javaBinary(),
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        HammerMain.class.getName(),
                        redis.uri(),
                        prefix,
                        Long.toString(offsetsMillis[i]),
                        Boolean.toString(scriptClock),
                        Long.toString(RUN_MILLIS),
                        Integer.toString(THREADS),
                        out.toString(),
                        policies.stream().map(Enum::name).collect(Collectors.joining(",")));
                children.add(
                        new ProcessBuilder(command).redirectError(err.toFile()).start());
            }
            List<BufferedReader> stdouts = new ArrayList<>();
            for (Process child : children) {
                stdouts.add(new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (int i = 0; i < PROCESSES; i++) {
                String line = readLine(stdouts.get(i));
                if (!"ready".equals(line)) {
                    throw childFailed(i, children.get(i), errs.get(i), "said " + line + " instead of ready");
                }
            }
            // in order of their clocks, each once the one before has taken what the limit had: a caller whose
            // clock is ahead of those before it then finds a full bucket if the scripts take the callers' time
            for (int i = 0; i < PROCESSES; i++) {
                try (Writer stdin = children.get(i).outputWriter(StandardCharsets.UTF_8)) {
                    stdin.write("go\n");
                }
                String line = readLine(stdouts.get(i));
                if (!"limited".equals(line)) {
                    throw childFailed(i, children.get(i), errs.get(i), "said " + line + " instead of limited");
                }
            }
            for (int i = 0; i < PROCESSES; i++) {
                Process child = children.get(i);
                if (!child.waitFor(CHILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw childFailed(i, child, errs.get(i), "did not finish within " + CHILD_TIMEOUT);
                }
                if (child.exitValue() != 0) {
                    throw childFailed(i, child, errs.get(i), "exited with " + child.exitValue());
                }
            }
        } finally {
            for (Process child : children) {
                if (child.isAlive()) {
                    child.destroyForcibly();
                    child.waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
        Map<HammerPolicy, Merged> merged = new EnumMap<>(HammerPolicy.class);
        for (HammerPolicy policy : policies) {
            merged.put(policy, Merged.of(policy, outs));
        }
        return merged;
    }

    private static String readLine(BufferedReader reader) throws Exception {
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return reader.readLine();
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        });
        try {
            return line.get(CHILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "nothing within " + CHILD_TIMEOUT;
        }
    }

    private static AssertionError childFailed(int index, Process child, Path err, String what) throws IOException {
        child.destroyForcibly();
        String stderr = Files.exists(err) ? Files.readString(err) : "(none)";
        return new AssertionError("child " + index + " (pid " + child.pid() + ") " + what + "; its stderr:\n" + stderr);
    }

    /** What every child logged for one policy. */
    record Merged(
            HammerPolicy policy,
            long[] grants,
            List<long[]> leases,
            long attempts,
            long degraded,
            long releaseFailures,
            long firstAttempt,
            long lastAttempt) {

        static Merged of(HammerPolicy policy, List<Path> files) throws IOException {
            List<Long> grants = new ArrayList<>();
            List<long[]> leases = new ArrayList<>();
            long attempts = 0;
            long degraded = 0;
            long releaseFailures = 0;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            int summaries = 0;
            for (Path file : files) {
                for (String line : Files.readAllLines(file)) {
                    String[] parts = line.split(" ");
                    if (!parts[0].equals(policy.name())) {
                        continue;
                    }
                    switch (parts[1]) {
                        case "G" -> grants.add(Long.parseLong(parts[2]));
                        case "L" -> leases.add(new long[] {Long.parseLong(parts[2]), Long.parseLong(parts[3])});
                        case "S" -> {
                            summaries++;
                            attempts += Long.parseLong(parts[2]);
                            degraded += Long.parseLong(parts[3]);
                            releaseFailures += Long.parseLong(parts[4]);
                            first = Math.min(first, Long.parseLong(parts[5]));
                            last = Math.max(last, Long.parseLong(parts[6]));
                        }
                        default -> throw new IllegalStateException("unexpected line in " + file + ": " + line);
                    }
                }
            }
            if (summaries != files.size()) {
                throw new IllegalStateException(
                        summaries + " of " + files.size() + " children reported on " + policy + ": " + files);
            }
            long[] sorted = grants.stream().mapToLong(Long::longValue).sorted().toArray();
            return new Merged(policy, sorted, leases, attempts, degraded, releaseFailures, first, last);
        }

        @Override
        public String toString() {
            return grants.length + " grants and " + leases.size() + " leases of " + attempts + " attempts over "
                    + Duration.ofNanos(lastAttempt - firstAttempt) + " by " + PROCESSES + " processes";
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Merged that && policy == that.policy && Arrays.equals(grants, that.grants);
        }

        @Override
        public int hashCode() {
            return policy.hashCode() * 31 + Arrays.hashCode(grants);
        }
    }
}
