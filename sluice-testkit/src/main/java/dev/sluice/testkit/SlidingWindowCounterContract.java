package dev.sluice.testkit;

import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link SlidingWindowCounter}: the current aligned window's count plus the previous window's count
 * weighted by the share of it the sliding window still covers, {@code previous × (window − elapsed) /
 * window}, compared in exact integer arithmetic (a request is allowed while the weighted sum plus its cost
 * is at most the limit).
 */
public abstract class SlidingWindowCounterContract extends ContractSupport {
    /** 10 permits per sliding second. */
    static final SlidingWindowCounter TEN_PER_SECOND = SlidingWindowCounter.of(10, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected SlidingWindowCounterContract() {}

    private RateLimiter tenPerSecond() {
        return engine.limiter("swc", TEN_PER_SECOND);
    }

    @Test
    void grantsTheLimitInAFreshWindowAndIsFullAgainTwoWindowsLater() {
        RateLimiter limiter = tenPerSecond();
        for (int i = 1; i <= 10; i++) {
            assertDecision(limiter.tryAcquire("k"), allowed("swc", 10, 10 - i, T0 + 2 * SECOND));
        }
        // 100 ms into the next window, this window's 10 weigh ceil(10 × 0.9) = 9: room for 1
        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 1100 * MS, T0 + 2 * SECOND));
    }

    @Test
    void weightsThePreviousWindowByTheShareTheSlidingWindowStillCovers() {
        RateLimiter limiter = tenPerSecond();
        for (int i = 0; i <= 6; i++) {
            limiter.tryAcquire("k" + i, 10);
        }

        clock.advance(Duration.ofSeconds(1)); // the next window starts: the previous 10 weigh 10
        assertDecision(limiter.tryAcquire("k0"), denied("swc", 10, 0, 100 * MS, T0 + 2 * SECOND));
        clock.advance(Duration.ofMillis(100)); // weigh ceil(10 × 0.9) = 9
        assertDecision(limiter.tryAcquire("k1"), allowed("swc", 10, 0, T0 + 3 * SECOND));
        clock.advance(Duration.ofMillis(150)); // weigh ceil(10 × 0.75) = 8
        assertDecision(limiter.tryAcquire("k2"), allowed("swc", 10, 1, T0 + 3 * SECOND));
        clock.advance(Duration.ofMillis(250)); // weigh 5
        assertDecision(limiter.tryAcquire("k3"), allowed("swc", 10, 4, T0 + 3 * SECOND));
        clock.advance(Duration.ofMillis(499)); // weigh ceil(10 × 0.001) = 1
        assertDecision(limiter.tryAcquire("k4"), allowed("swc", 10, 8, T0 + 3 * SECOND));
        clock.advanceNanos(999_999); // 1 ns before the window ends: still weigh ceil(10 × 10^-9) = 1
        assertDecision(limiter.tryAcquire("k5"), allowed("swc", 10, 8, T0 + 3 * SECOND));
        clock.advanceNanos(1); // two windows later: forgotten
        assertDecision(limiter.tryAcquire("k6", 10), allowed("swc", 10, 0, T0 + 4 * SECOND));
    }

    @Test
    void retryAfterWithinTheWindowIsExactToTheNanosecond() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);
        clock.advance(Duration.ofMillis(1250)); // previous 10 weigh 8

        assertDecision(limiter.tryAcquire("k"), allowed("swc", 10, 1, T0 + 3 * SECOND));
        assertDecision(limiter.tryAcquire("k"), allowed("swc", 10, 0, T0 + 3 * SECOND));
        // allowed once the previous 10 weigh 7: 300 ms into the window
        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 50 * MS, T0 + 3 * SECOND));
        clock.advanceNanos(50 * MS - 1);
        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 1, T0 + 3 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("swc", 10, 0, T0 + 3 * SECOND));
    }

    @Test
    void retryAfterReachesIntoTheNextWindowWhenTheCurrentOneIsFull() {
        RateLimiter limiter = tenPerSecond();
        clock.advance(Duration.ofMillis(500));
        assertDecision(limiter.tryAcquire("k", 10), allowed("swc", 10, 0, T0 + 2 * SECOND));
        clock.advance(Duration.ofMillis(100));

        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 500 * MS, T0 + 2 * SECOND));
        clock.advanceNanos(500 * MS - 1);
        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 1, T0 + 2 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("swc", 10, 0, T0 + 3 * SECOND));
    }

    @Test
    void aFullSizeRequestWaitsUntilThePreviousWindowNoLongerCounts() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);
        clock.advance(Duration.ofMillis(1500)); // previous 10 weigh 5

        assertDecision(limiter.tryAcquire("k", 10), denied("swc", 10, 5, 500 * MS, T0 + 2 * SECOND));
        clock.advanceNanos(500 * MS - 1); // previous 10 weigh ceil(10 × 10^-9) = 1
        assertDecision(limiter.tryAcquire("k", 10), denied("swc", 10, 9, 1, T0 + 2 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 10), allowed("swc", 10, 0, T0 + 4 * SECOND));
    }

    @Test
    void aFullSizeRequestAfterAFullWindowWaitsForTwoWindowBoundaries() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);
        clock.advance(Duration.ofMillis(500));

        assertDecision(limiter.tryAcquire("k", 10), denied("swc", 10, 0, 1500 * MS, T0 + 2 * SECOND));
        clock.advanceNanos(1500 * MS - 1);
        assertDecision(limiter.tryAcquire("k", 10), denied("swc", 10, 9, 1, T0 + 2 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 10), allowed("swc", 10, 0, T0 + 4 * SECOND));
    }

    @Test
    void costWeightedRetryAfterUsesExactIntegerWeighting() {
        RateLimiter limiter = tenPerSecond();
        assertDecision(limiter.tryAcquire("k", 7), allowed("swc", 10, 3, T0 + 2 * SECOND));
        // 4 more fit once 7 × (1 s − e) / 1 s ≤ 6: e ≥ 1 s − ⌊6 s / 7⌋ = 142,857,143 ns into the next window
        assertDecision(limiter.tryAcquire("k", 4), denied("swc", 10, 3, 1_142_857_143L, T0 + 2 * SECOND));
        clock.advanceNanos(1_142_857_142L);
        assertDecision(limiter.tryAcquire("k", 4), denied("swc", 10, 3, 1, T0 + 2 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 4), allowed("swc", 10, 0, T0 + 3 * SECOND));
    }

    /**
     * The documented estimate: an aligned window never holds more than the limit, but a sliding window of
     * the same length can, when the previous window's permits were taken late in it.
     */
    @Test
    void slidingSpanCanHoldMoreThanTheLimitWhenThePreviousWindowWasBackLoaded() {
        RateLimiter limiter = tenPerSecond();
        clock.advance(Duration.ofMillis(999));
        assertDecision(limiter.tryAcquire("k", 10), allowed("swc", 10, 0, T0 + 2 * SECOND));
        clock.advance(Duration.ofMillis(1));
        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 100 * MS, T0 + 2 * SECOND));

        clock.advance(Duration.ofMillis(900)); // the previous 10 weigh 1 although all 10 were 901 ms ago
        assertDecision(limiter.tryAcquire("k", 9), allowed("swc", 10, 0, T0 + 3 * SECOND));
        // 19 permits within 901 ms: fewer than twice the limit, more than the limit
    }

    @Test
    void largeCountsAreWeightedWithoutOverflow() {
        long limit = 1_000_000_000_000L;
        RateLimiter limiter = engine.limiter("big", SlidingWindowCounter.of(limit, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", limit);
        clock.advance(Duration.ofMillis(1500)); // 10^12 × 0.5 still counts

        assertDecision(limiter.tryAcquire("k"), allowed("big", limit, 499_999_999_999L, T0 + 3 * SECOND));
        assertDecision(
                limiter.tryAcquire("k", 500_000_000_000L), denied("big", limit, 499_999_999_999L, 1, T0 + 3 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 500_000_000_000L), allowed("big", limit, 999, T0 + 3 * SECOND));
    }

    /**
     * A key whose previous window still counts is not idle: a sweep of the in-memory key table (which runs when
     * a new key finds it full) must keep it, or the key would come back at its full limit and over-admit.
     */
    @Test
    void aKeyWhosePreviousWindowStillCountsKeepsItsStateWhenTheKeyTableIsFull() {
        RateLimiter limiter = engine.limiter(
                "swc", TEN_PER_SECOND, LimiterOptions.builder().maxKeys(1).build());
        limiter.tryAcquire("a", 10);
        clock.advance(Duration.ofMillis(1500)); // a's 10 weigh 5

        assertDecision(limiter.tryAcquire("b", 10), allowed("swc", 10, 0, T0 + 3 * SECOND));
        assertDecision(limiter.tryAcquire("a", 10), denied("swc", 10, 5, 500 * MS, T0 + 2 * SECOND));
        clock.advanceNanos(500 * MS - 1);
        assertDecision(limiter.tryAcquire("a", 10), denied("swc", 10, 9, 1, T0 + 2 * SECOND));
    }
}
