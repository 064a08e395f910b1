package dev.sluice.testkit;

import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link SlidingWindowLog}: exact; a grant made at {@code t} counts against every instant before
 * {@code t + window} and no other.
 */
public abstract class SlidingWindowLogContract extends ContractSupport {
    /** 3 permits in any span of one second. */
    static final SlidingWindowLog THREE_PER_SECOND = SlidingWindowLog.of(3, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected SlidingWindowLogContract() {}

    private RateLimiter threePerSecond() {
        return engine.limiter("log", THREE_PER_SECOND);
    }

    @Test
    void eachGrantCountsForExactlyOneWindowAfterItWasMade() {
        RateLimiter limiter = threePerSecond();
        assertDecision(limiter.tryAcquire("k"), allowed("log", 3, 2, T0 + SECOND));
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k"), allowed("log", 3, 1, T0 + 1100 * MS));
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k"), allowed("log", 3, 0, T0 + 1200 * MS));
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k"), denied("log", 3, 0, 700 * MS, T0 + 1200 * MS));

        clock.advanceNanos(700 * MS - 1);
        assertDecision(limiter.tryAcquire("k"), denied("log", 3, 0, 1, T0 + 1200 * MS));
        clock.advanceNanos(1); // the grant made at T0 no longer counts
        assertDecision(limiter.tryAcquire("k"), allowed("log", 3, 0, T0 + 2 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("log", 3, 0, 100 * MS, T0 + 2 * SECOND));
    }

    @Test
    void noBurstPassesAcrossAnAlignedWindowBoundary() {
        RateLimiter limiter = threePerSecond();
        clock.advance(Duration.ofMillis(999));
        assertDecision(limiter.tryAcquire("k", 3), allowed("log", 3, 0, T0 + 1999 * MS));

        clock.advance(Duration.ofMillis(1)); // a new aligned second, but the same sliding one
        assertDecision(limiter.tryAcquire("k"), denied("log", 3, 0, 999 * MS, T0 + 1999 * MS));
    }

    @Test
    void costWeightedRetryAfterWaitsForEnoughOldGrantsToLeave() {
        RateLimiter limiter = threePerSecond();
        assertDecision(limiter.tryAcquire("k", 2), allowed("log", 3, 1, T0 + SECOND));
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k", 1), allowed("log", 3, 0, T0 + 1100 * MS));
        clock.advance(Duration.ofMillis(100));

        assertDecision(limiter.tryAcquire("k", 1), denied("log", 3, 0, 800 * MS, T0 + 1100 * MS));
        assertDecision(limiter.tryAcquire("k", 2), denied("log", 3, 0, 800 * MS, T0 + 1100 * MS));
        assertDecision(limiter.tryAcquire("k", 3), denied("log", 3, 0, 900 * MS, T0 + 1100 * MS));

        clock.advance(Duration.ofMillis(800));
        assertDecision(limiter.tryAcquire("k", 3), denied("log", 3, 2, 100 * MS, T0 + 1100 * MS));
        assertDecision(limiter.tryAcquire("k", 2), allowed("log", 3, 0, T0 + 2 * SECOND));
    }

    @Test
    void grantsMadeAtTheSameInstantLeaveTogether() {
        RateLimiter limiter = threePerSecond();
        for (int i = 2; i >= 0; i--) {
            assertDecision(limiter.tryAcquire("k"), allowed("log", 3, i, T0 + SECOND));
        }
        assertDecision(limiter.tryAcquire("k"), denied("log", 3, 0, SECOND, T0 + SECOND));
        clock.advance(Duration.ofSeconds(1));
        assertDecision(limiter.tryAcquire("k", 3), allowed("log", 3, 0, T0 + 2 * SECOND));
    }

    @Test
    void deniedRequestsAreNotRecorded() {
        RateLimiter limiter = threePerSecond();
        limiter.tryAcquire("k", 3);
        clock.advance(Duration.ofMillis(500));
        assertDecision(limiter.tryAcquire("k", 2), denied("log", 3, 0, 500 * MS, T0 + SECOND));
        clock.advance(Duration.ofMillis(500));
        assertDecision(limiter.tryAcquire("k", 3), allowed("log", 3, 0, T0 + 2 * SECOND));
    }

    @Test
    void theLargestLimitIsTrackedExactly() {
        long limit = SlidingWindowLog.MAX_LIMIT;
        RateLimiter limiter = engine.limiter("big", SlidingWindowLog.of(limit, Duration.ofSeconds(1)));
        for (int i = 0; i < 1000; i++) {
            limiter.tryAcquire("k", 999);
            clock.advanceNanos(1);
        }
        // 999,000 taken at T0 .. T0 + 999 ns
        assertDecision(limiter.tryAcquire("k", 1000), allowed("big", limit, 0, T0 + 1000 + SECOND));
        assertDecision(limiter.tryAcquire("k", 999), denied("big", limit, 0, SECOND - 1000, T0 + 1000 + SECOND));
        clock.advanceNanos(SECOND - 1000); // the 999 taken at T0 leave
        assertDecision(limiter.tryAcquire("k", 999), allowed("big", limit, 0, T0 + 2 * SECOND));
    }
}
