package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link TokenBucket}: capacity at once, continuous refill at one permit per emission interval
 * ({@code ceil(period / refillTokens)} ns).
 */
public abstract class TokenBucketContract extends ContractSupport {
    /** 10 permits, 10 back per second: one permit back every 100 ms. */
    static final TokenBucket TEN_PER_SECOND = TokenBucket.of(10, 10, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected TokenBucketContract() {}

    private RateLimiter tenPerSecond() {
        return engine.limiter("api", TEN_PER_SECOND);
    }

    @Test
    void freshKeyGrantsUpToCapacityCountingRemainingDown() {
        RateLimiter limiter = tenPerSecond();
        for (int i = 1; i <= 10; i++) {
            var decision = limiter.tryAcquire("k");
            assertDecision(decision, allowed("api", 10, 10 - i, T0 + i * 100 * MS));
            assertThat(decision.lease()).isSameAs(Lease.none());
        }
    }

    @Test
    void deniesWhenBucketEmptyAndReportsExactRetryAfter() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);

        var decision = limiter.tryAcquire("k");

        assertDecision(decision, denied("api", 10, 0, 100 * MS, T0 + SECOND));
        assertThat(decision.denied()).isTrue();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofMillis(100));
        assertThat(decision.resetAt()).isEqualTo(java.time.Instant.parse("2026-01-01T00:00:01Z"));
    }

    @Test
    void refillsOnePermitAfterExactlyOneIntervalNotOneNanosecondBefore() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);

        clock.advanceNanos(100 * MS - 1);
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 1, T0 + SECOND));

        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 0, T0 + 1100 * MS));
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 100 * MS, T0 + 1100 * MS));
    }

    @Test
    void refillIsContinuousSoPartOfAnIntervalCountsTowardsTheNextPermit() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);
        clock.advance(Duration.ofMillis(350)); // 3.5 permits back

        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 2, T0 + 1100 * MS));
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 1, T0 + 1200 * MS));
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 0, T0 + 1300 * MS));
        // the half permit left needs 50 ms more
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 50 * MS, T0 + 1300 * MS));
    }

    @Test
    void partialPermitsAreNotCountedInRemaining() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 10);
        clock.advance(Duration.ofMillis(150)); // 1.5 permits back

        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 0, T0 + 1100 * MS));
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 50 * MS, T0 + 1100 * MS));
    }

    @Test
    void idleTimeNeverFillsTheBucketBeyondCapacity() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k");
        clock.advance(Duration.ofHours(1));

        assertDecision(limiter.tryAcquire("k", 10), allowed("api", 10, 0, T0 + 3600 * SECOND + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 100 * MS, T0 + 3601 * SECOND));
    }

    @Test
    void costWeightedRequestsTakeAndWaitForTheirWholeCost() {
        RateLimiter limiter = tenPerSecond();

        assertDecision(limiter.tryAcquire("k", 7), allowed("api", 10, 3, T0 + 700 * MS));
        assertDecision(limiter.tryAcquire("k", 4), denied("api", 10, 3, 100 * MS, T0 + 700 * MS));
        assertDecision(limiter.tryAcquire("k", 3), allowed("api", 10, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k", 5), denied("api", 10, 0, 500 * MS, T0 + SECOND));

        clock.advanceNanos(500 * MS - 1); // 4.99999999 permits back
        assertDecision(limiter.tryAcquire("k", 5), denied("api", 10, 4, 1, T0 + SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 5), allowed("api", 10, 0, T0 + 1500 * MS));
    }

    @Test
    void deniedRequestsTakeNothing() {
        RateLimiter limiter = tenPerSecond();
        limiter.tryAcquire("k", 8);
        for (int i = 0; i < 5; i++) {
            assertDecision(limiter.tryAcquire("k", 3), denied("api", 10, 2, 100 * MS, T0 + 800 * MS));
        }
        assertDecision(limiter.tryAcquire("k", 2), allowed("api", 10, 0, T0 + SECOND));
    }

    @Test
    void resetAtIsWhenTheBucketIsFullAgain() {
        RateLimiter limiter = tenPerSecond();
        assertDecision(limiter.tryAcquire("k", 4), allowed("api", 10, 6, T0 + 400 * MS));
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 6, T0 + 500 * MS));
        clock.advance(Duration.ofMillis(1000)); // full again since T0 + 500 ms
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 9, T0 + 1200 * MS));
    }

    @Test
    void emissionIntervalIsRoundedUpSoTheRateIsNeverExceeded() {
        // 3 per second: one permit every 333,333,334 ns, not 333,333,333
        RateLimiter limiter = engine.limiter("thirds", TokenBucket.of(1, 3, Duration.ofSeconds(1)));
        assertThat(TokenBucket.of(1, 3, Duration.ofSeconds(1)).nanosPerPermit()).isEqualTo(333_333_334L);

        assertDecision(limiter.tryAcquire("k"), allowed("thirds", 1, 0, T0 + 333_333_334L));
        assertDecision(limiter.tryAcquire("k"), denied("thirds", 1, 0, 333_333_334L, T0 + 333_333_334L));
        clock.advanceNanos(333_333_333L);
        assertDecision(limiter.tryAcquire("k"), denied("thirds", 1, 0, 1, T0 + 333_333_334L));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("thirds", 1, 0, T0 + 666_666_668L));
        clock.advanceNanos(333_333_334L);
        assertDecision(limiter.tryAcquire("k"), allowed("thirds", 1, 0, T0 + 1_000_000_002L));
        // the fourth permit comes 1,000,000,002 ns after the first: never 4 within one second
    }

    @Test
    void bucketOfCapacityPerPeriodRefillsCompletelyOncePerPeriod() {
        RateLimiter limiter = engine.limiter("five", TokenBucket.of(5, Duration.ofSeconds(1)));
        RateLimiter perSecond = engine.limiter("per-second", TokenBucket.perSecond(4));

        assertDecision(limiter.tryAcquire("k", 5), allowed("five", 5, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("five", 5, 0, 200 * MS, T0 + SECOND));
        assertDecision(perSecond.tryAcquire("k", 4), allowed("per-second", 4, 0, T0 + SECOND));
        assertDecision(perSecond.tryAcquire("k"), denied("per-second", 4, 0, 250 * MS, T0 + SECOND));
        clock.advance(Duration.ofSeconds(1));
        assertDecision(limiter.tryAcquire("k", 5), allowed("five", 5, 0, T0 + 2 * SECOND));
        assertDecision(perSecond.tryAcquire("k", 4), allowed("per-second", 4, 0, T0 + 2 * SECOND));
    }

    @Test
    void oneNanosecondIntervalIsTheFinestRateAndWorksExactly() {
        RateLimiter limiter = engine.limiter("fast", TokenBucket.of(5, 1_000_000_000, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k", 5), allowed("fast", 5, 0, T0 + 5));
        assertDecision(limiter.tryAcquire("k", 2), denied("fast", 5, 0, 2, T0 + 5));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 2), denied("fast", 5, 1, 1, T0 + 5));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 2), allowed("fast", 5, 0, T0 + 7));
    }

    @Test
    void largestCapacityIsTakenAndRefilledExactly() {
        long capacity = LimitPolicy.MAX_PERMITS; // 10^12, one back per nanosecond
        RateLimiter limiter = engine.limiter("huge", TokenBucket.of(capacity, Duration.ofSeconds(1000)));

        assertDecision(limiter.tryAcquire("k", capacity), allowed("huge", capacity, 0, T0 + 1000 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("huge", capacity, 0, 1, T0 + 1000 * SECOND));
        clock.advance(Duration.ofSeconds(400));
        assertDecision(
                limiter.tryAcquire("k", capacity),
                denied("huge", capacity, 400 * SECOND, 600 * SECOND, T0 + 1000 * SECOND));
        assertDecision(limiter.tryAcquire("k", 400 * SECOND), allowed("huge", capacity, 0, T0 + 1400 * SECOND));
    }
}
