package dev.sluice.redis.internal;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the differential tests of the limit script share: the Redis runner (one per test class), the clock's
 * starting points, and the random choices of clock steps and permits that {@link DifferentialRun} and {@link
 * DifferentialChainRun} make, with the decisions of both engines written out the same way to compare them. The
 * tests extend it: {@link LimitScriptDifferentialTest}, {@link LimitScriptChainDifferentialTest} and {@link
 * LimitScriptPolicyChangeDifferentialTest}.
 */
abstract class LimitScriptDifferential {
    static final long TWO_52 = 1L << 52;
    static final Instant[] STARTS = {
        ManualClock.DEFAULT_START, // 2026-01-01T00:00:00Z
        Instant.parse("2026-07-14T13:37:42.123456789Z"),
        Instant.EPOCH.plusNanos(1),
        Instant.parse("2099-12-31T23:59:59.999999999Z"),
    };
    /** Keeps the virtual clock where readings plus policy spans stay far below {@link SluiceClock#MAX_NANOS}. */
    static final long LATEST = SluiceClock.MAX_NANOS - 8 * TWO_52;

    /** The script on the shared test Redis, for the test class that runs. */
    static LimitScriptRunner runner;

    private static int runs;

    @BeforeAll
    static void connect() {
        runner = new LimitScriptRunner();
    }

    @AfterAll
    static void disconnect() {
        runner.close();
    }

    /** A name no other run of this JVM has: the prefix and a counter. */
    static String uniqueName(String prefix) {
        return prefix + runs++;
    }

    /** The time a policy's state takes to drain: the scale of the clock steps. */
    static long span(LimitPolicy policy) {
        return switch (policy) {
            case TokenBucket bucket -> bucket.capacity() * bucket.nanosPerPermit();
            case Gcra gcra -> gcra.burst() * gcra.nanosPerPermit();
            case FixedWindow window -> window.window().toNanos();
            case SlidingWindowCounter window -> window.window().toNanos();
            case SlidingWindowLog log -> log.window().toNanos();
            case ConcurrencyLimit concurrency -> concurrency.leaseTimeout().toNanos();
            case AdaptiveRate adaptive -> throw new IllegalArgumentException("no limiter takes " + adaptive);
        };
    }

    static long window(LimitPolicy policy) {
        return switch (policy) {
            case FixedWindow window -> window.window().toNanos();
            case SlidingWindowCounter window -> window.window().toNanos();
            default -> span(policy);
        };
    }

    /** How far to move the clock: nothing, a nanosecond, a permit's time, a window, exact boundaries. */
    static long advance(Random random, LimitPolicy policy, long now, Decision last) {
        long span = span(policy);
        long window = window(policy);
        long step = switch (random.nextInt(13)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> random.nextLong(1_000);
            case 3 -> random.nextLong(span / policy.limit() + 2);
            case 4 -> random.nextLong(span / 10 + 1);
            case 5 -> random.nextLong(span + 1);
            case 6 -> span;
            case 7 -> span + random.nextLong(span + 1);
            case 8 -> last != null && last.denied() ? last.retryAfterNanos() : 0;
            case 9 -> last != null && last.denied() ? last.retryAfterNanos() - 1 : 1;
            case 10 -> last != null ? Math.max(0, last.resetAtNanos() - now + random.nextInt(3) - 1) : 0;
            case 11 -> window - Math.floorMod(now, window) + random.nextInt(3) - 1;
            default -> random.nextLong(3 * span + 1);
        };
        step = Math.max(0, step);
        return now + step > LATEST ? random.nextLong(1_000) : step;
    }

    static long permits(Random random, long limit) {
        long permits = switch (random.nextInt(7)) {
            case 0, 1 -> 1;
            case 2 -> 1 + random.nextLong(Math.min(limit, 5));
            case 3 -> limit;
            case 4 -> (long) Math.exp(random.nextDouble() * Math.log(limit));
            case 5 -> limit / 2;
            default -> 1 + random.nextLong(limit);
        };
        return Math.max(1, Math.min(limit, permits));
    }

    private static String decision(boolean allowed, long remaining, long retryAfter, long resetAt) {
        return (allowed ? "allowed" : "denied") + ", remaining " + remaining + ", retry after " + retryAfter
                + ", reset at " + resetAt;
    }

    static String expected(Decision decision) {
        return decision(decision.allowed(), decision.remaining(), decision.retryAfterNanos(), decision.resetAtNanos());
    }

    static String actual(LimitScript.Result result) {
        return decision(result.allowed(), result.remaining(), result.retryAfterNanos(), result.resetAtNanos());
    }

    /** The expiry the script sets (without its test slack), as Redis keeps it: epoch ms, alive through it. */
    static long expiryMs(long idleAtNanos, long now) {
        return Math.floorDiv(now, 1_000_000)
                + Math.max(1, Math.ceilDiv(idleAtNanos - Math.floorDiv(now, 1_000_000) * 1_000_000, 1_000_000));
    }
}
