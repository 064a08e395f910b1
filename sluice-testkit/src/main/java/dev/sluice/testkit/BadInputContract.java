package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Bad input is an {@link IllegalArgumentException} whose message names the bad value and the allowed
 * range, and a rejected call changes nothing.
 */
public abstract class BadInputContract extends ContractSupport {
    /** 2^52 ns ({@link dev.sluice.limit.LimitPolicy#MAX_SPAN}), the longest span a policy may describe. */
    private static final String LONGEST_SPAN = "52 d 2 h 59 min 59.627370496 s (LimitPolicy.MAX_SPAN";

    private static final Duration SECOND_DURATION = Duration.ofSeconds(1);

    /** For subclasses, one per engine. */
    protected BadInputContract() {}

    /** A limiter of 10 per second with 3 permits taken: every rejected call must leave it so. */
    private RateLimiter limiterWithThreeTaken() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, SECOND_DURATION));
        limiter.tryAcquire("k", 3);
        return limiter;
    }

    private void assertStillThreeTaken(RateLimiter limiter) {
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 6, T0 + 400 * MS));
    }

    @Test
    void rejectsNullEmptyAndTooLongKeys() {
        RateLimiter limiter = limiterWithThreeTaken();
        String tooLong = "k".repeat(513);

        assertRejected(() -> limiter.tryAcquire(null), "key", "1 to 512", "null");
        assertRejected(() -> limiter.tryAcquire(""), "key", "1 to 512", "empty");
        assertRejected(() -> limiter.tryAcquire(tooLong), "key", "1 to 512", "513");
        assertRejected(() -> limiter.tryAcquire(null, 1), "key", "1 to 512", "null");
        assertRejected(() -> limiter.acquire("", 1, SECOND_DURATION), "key", "1 to 512", "empty");
        assertRejected(() -> limiter.acquire(tooLong, 1, SECOND_DURATION), "key", "1 to 512", "513");
        assertRejected(() -> limiter.acquireAsync(null, 1, SECOND_DURATION), "key", "1 to 512", "null");

        assertStillThreeTaken(limiter);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void rejectsPermitsBelowOneOrAboveTheLimit() {
        RateLimiter limiter = limiterWithThreeTaken();

        for (long permits : new long[] {0, -1, 11, 1_000, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertRejected(() -> limiter.tryAcquire("k", permits), "permits", "between 1 and 10", "api", "" + permits);
            assertRejected(() -> limiter.acquire("k", permits, SECOND_DURATION), "permits", "between 1 and 10");
            assertRejected(() -> limiter.acquireAsync("k", permits, SECOND_DURATION), "permits", "between 1 and 10");
        }

        assertStillThreeTaken(limiter);
        assertThat(clock.nanos()).isEqualTo(T0);
    }

    @Test
    void theLimitItselfIsAValidCostForEveryPolicy() {
        Duration tenSeconds = Duration.ofSeconds(10);
        assertThat(engine.limiter("tb", TokenBucket.of(7, SECOND_DURATION))
                        .tryAcquire("k", 7)
                        .allowed())
                .isTrue();
        assertThat(engine.limiter("gcra", Gcra.of(1, SECOND_DURATION, 7))
                        .tryAcquire("k", 7)
                        .allowed())
                .isTrue();
        assertThat(engine.limiter("fw", FixedWindow.of(7, SECOND_DURATION))
                        .tryAcquire("k", 7)
                        .allowed())
                .isTrue();
        assertThat(engine.limiter("swc", SlidingWindowCounter.of(7, SECOND_DURATION))
                        .tryAcquire("k", 7)
                        .allowed())
                .isTrue();
        assertThat(engine.limiter("log", SlidingWindowLog.of(7, SECOND_DURATION))
                        .tryAcquire("k", 7)
                        .allowed())
                .isTrue();
        assertThat(engine.concurrencyLimiter("conc", ConcurrencyLimit.of(7, tenSeconds))
                        .tryAcquire("k", 7)
                        .allowed())
                .isTrue();
        assertRejected(
                () -> engine.limiter("gcra", Gcra.of(1, SECOND_DURATION, 7)).tryAcquire("k", 8), "between 1 and 7");
        assertRejected(
                () -> engine.limiter("log", SlidingWindowLog.of(7, SECOND_DURATION))
                        .tryAcquire("k", 8),
                "between 1 and 7");
        assertRejected(
                () -> engine.concurrencyLimiter("conc", ConcurrencyLimit.of(7, tenSeconds))
                        .tryAcquire("k", 8),
                "between 1 and 7");
    }

    @Test
    void rejectsMalformedLimiterNamesAndRegistersNothing() {
        RateLimiter limiter = limiterWithThreeTaken();
        TokenBucket policy = TokenBucket.perSecond(1);

        assertRejected(() -> engine.limiter(null, policy), "limiter name", "1 to 128", "null");
        assertRejected(() -> engine.limiter("", policy), "limiter name", "1 to 128", "''");
        assertRejected(() -> engine.limiter("has space", policy), "limiter name", "1 to 128", "'has space'");
        assertRejected(() -> engine.limiter("n".repeat(129), policy), "limiter name", "1 to 128", "n".repeat(129));
        assertRejected(() -> engine.limiter("ünï", policy), "limiter name", "'ünï'");
        assertRejected(() -> engine.limiter("a/b", policy), "limiter name", "'a/b'");
        assertRejected(() -> engine.limiter("a*", policy), "limiter name", "'a*'");
        assertRejected(() -> engine.limiter("api\n", policy), "limiter name");

        assertThat(engine.limiter("api", limiter.policy())).isSameAs(limiter);
        assertStillThreeTaken(limiter);
    }

    @Test
    void rejectsAMissingPolicyOrOptionsAndRegistersNothing() {
        assertRejected(() -> engine.limiter("fresh", null), "policy", "fresh", "null");
        assertRejected(() -> engine.limiter("fresh", TokenBucket.perSecond(1), null), "options", "fresh", "null");

        FixedWindow window = FixedWindow.of(1, SECOND_DURATION);
        assertThat(engine.limiter("fresh", window).policy()).isEqualTo(window);
    }

    @Test
    void tokenBucketRejectsOutOfRangeValuesNamingValueAndRange() {
        assertRejected(() -> TokenBucket.of(0, 1, SECOND_DURATION), "capacity", "between 1 and 1000000000000", "was 0");
        assertRejected(
                () -> TokenBucket.of(1_000_000_000_001L, 1_000_000_000L, SECOND_DURATION),
                "capacity",
                "between 1 and 1000000000000",
                "1000000000001");
        assertRejected(() -> TokenBucket.of(1, 0, SECOND_DURATION), "refillTokens", "between 1 and", "was 0");
        assertRejected(() -> TokenBucket.of(1, -5, SECOND_DURATION), "refillTokens", "between 1 and", "-5");
        assertRejected(() -> TokenBucket.of(1, 1, Duration.ZERO), "refillPeriod", "positive", "0 ns");
        assertRejected(() -> TokenBucket.of(1, 1, Duration.ofSeconds(-1)), "refillPeriod", "positive", "-1 s");
        assertRejected(() -> TokenBucket.of(1, 1, null), "refillPeriod", "positive", "null");
        assertRejected(
                () -> TokenBucket.of(1, 1, Duration.ofDays(40_000)),
                "refillPeriod",
                "at most " + LONGEST_SPAN,
                "40000 d");
        assertRejected(
                () -> TokenBucket.of(10, 2_000_000_000L, SECOND_DURATION),
                "2000000000",
                "1 s",
                "at most 1 permit per nanosecond");
        assertRejected(
                () -> TokenBucket.of(1_000_000_000_000L, 1, Duration.ofDays(1)),
                "capacity",
                "1000000000000",
                "1 d",
                LONGEST_SPAN);
        assertRejected(() -> TokenBucket.perSecond(0), "capacity", "was 0");
    }

    @Test
    void tokenBucketAcceptsTheBoundaryValues() {
        assertThat(TokenBucket.of(1_000_000_000_000L, 1_000_000_000L, SECOND_DURATION)
                        .nanosPerPermit())
                .isEqualTo(1);
        assertThat(TokenBucket.of(1, 1, Duration.ofNanos(1L << 52)).nanosPerPermit())
                .isEqualTo(1L << 52);
        assertThat(TokenBucket.of(1, 1, Duration.ofNanos(1)).nanosPerPermit()).isEqualTo(1);
    }

    @Test
    void gcraRejectsOutOfRangeValuesNamingValueAndRange() {
        assertRejected(() -> Gcra.of(0, SECOND_DURATION, 1), "rate", "between 1 and", "was 0");
        assertRejected(() -> Gcra.of(1, SECOND_DURATION, 0), "burst", "between 1 and 1000000000000", "was 0");
        assertRejected(() -> Gcra.of(1, SECOND_DURATION, -3), "burst", "between 1 and 1000000000000", "-3");
        assertRejected(() -> Gcra.of(1, Duration.ZERO, 1), "period", "positive", "0 ns");
        assertRejected(() -> Gcra.of(1, null, 1), "period", "positive", "null");
        assertRejected(
                () -> Gcra.of(2_000_000_000L, SECOND_DURATION, 1),
                "rate",
                "2000000000",
                "at most 1 permit per nanosecond");
        assertRejected(() -> Gcra.of(1, Duration.ofDays(1), 1_000_000), "burst", "1000000", "1 d", LONGEST_SPAN);
    }

    @Test
    void windowPoliciesRejectOutOfRangeValuesNamingValueAndRange() {
        assertRejected(() -> FixedWindow.of(0, SECOND_DURATION), "limit", "between 1 and 1000000000000", "was 0");
        assertRejected(
                () -> FixedWindow.of(1_000_000_000_001L, SECOND_DURATION),
                "limit",
                "between 1 and 1000000000000",
                "1000000000001");
        assertRejected(() -> FixedWindow.of(1, Duration.ofNanos(-1)), "window", "positive", "-1 ns");
        assertRejected(() -> FixedWindow.of(1, Duration.ofDays(40_000)), "window", "at most " + LONGEST_SPAN);
        assertRejected(
                () -> SlidingWindowCounter.of(-1, SECOND_DURATION), "limit", "between 1 and 1000000000000", "-1");
        assertRejected(() -> SlidingWindowCounter.of(1, null), "window", "positive", "null");
        assertRejected(
                () -> SlidingWindowLog.of(1_000_001, SECOND_DURATION), "limit", "between 1 and 1000000", "1000001");
        assertRejected(() -> SlidingWindowLog.of(0, SECOND_DURATION), "limit", "between 1 and 1000000", "was 0");
        assertRejected(() -> SlidingWindowLog.of(1, Duration.ZERO), "window", "positive", "0 ns");

        assertThat(SlidingWindowLog.of(1_000_000, Duration.ofNanos(1)).limit()).isEqualTo(1_000_000);
        assertThat(FixedWindow.of(1_000_000_000_000L, Duration.ofNanos(1L << 52))
                        .limit())
                .isEqualTo(1_000_000_000_000L);
    }

    @Test
    void concurrencyLimitRejectsOutOfRangeValuesNamingValueAndRange() {
        assertRejected(
                () -> ConcurrencyLimit.of(0, SECOND_DURATION), "maxConcurrent", "between 1 and 1000000", "was 0");
        assertRejected(
                () -> ConcurrencyLimit.of(1_000_001, SECOND_DURATION),
                "maxConcurrent",
                "between 1 and 1000000",
                "1000001");
        assertRejected(() -> ConcurrencyLimit.of(1, Duration.ZERO), "leaseTimeout", "positive", "0 ns");
        assertRejected(() -> ConcurrencyLimit.of(1, Duration.ofMillis(-5)), "leaseTimeout", "positive", "-5 ms");
        assertThat(ConcurrencyLimit.of(1_000_000, Duration.ofNanos(1)).limit()).isEqualTo(1_000_000);
    }

    @Test
    void limiterOptionsRejectOutOfRangeValuesNamingValueAndRange() {
        assertRejected(
                () -> LimiterOptions.builder()
                        .maxKeys(0)
                        .listener(LimiterListener.none())
                        .build(),
                "maxKeys",
                "between 1 and 1073741824",
                "was 0");
        assertRejected(() -> LimiterOptions.builder().maxKeys(-1).build(), "maxKeys", "between 1 and 1073741824", "-1");
        assertRejected(() -> LimiterOptions.builder().listener(null).build(), "listener", "null");
        assertThat(LimiterOptions.builder().maxKeys(1 << 30).build().maxKeys()).isEqualTo(1 << 30);
    }
}
