package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Gcra}: requests spaced {@code period / rate} apart with bursts of up to {@code burst}. */
public abstract class GcraContract extends ContractSupport {
    /** 10 per second (one every 100 ms), bursts of 5. */
    static final Gcra TEN_PER_SECOND_BURST_5 = Gcra.of(10, Duration.ofSeconds(1), 5);

    /** For subclasses, one per engine. */
    protected GcraContract() {}

    @Test
    void grantsABurstAtOnceThenDeniesUntilTheNextEmission() {
        RateLimiter limiter = engine.limiter("gcra", TEN_PER_SECOND_BURST_5);
        for (int i = 1; i <= 5; i++) {
            assertDecision(limiter.tryAcquire("k"), allowed("gcra", 5, 5 - i, T0 + i * 100 * MS));
        }
        assertDecision(limiter.tryAcquire("k"), denied("gcra", 5, 0, 100 * MS, T0 + 500 * MS));

        clock.advanceNanos(100 * MS - 1);
        assertDecision(limiter.tryAcquire("k"), denied("gcra", 5, 0, 1, T0 + 500 * MS));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("gcra", 5, 0, T0 + 600 * MS));
    }

    @Test
    void burstOfOneSpacesEveryRequestByTheFullInterval() {
        RateLimiter limiter = engine.limiter("spaced", Gcra.of(1, Duration.ofSeconds(1), 1));

        assertDecision(limiter.tryAcquire("k"), allowed("spaced", 1, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("spaced", 1, 0, SECOND, T0 + SECOND));
        clock.advanceNanos(SECOND - 1);
        assertDecision(limiter.tryAcquire("k"), denied("spaced", 1, 0, 1, T0 + SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("spaced", 1, 0, T0 + 2 * SECOND));
    }

    @Test
    void costWeightedRequestsAreSpacedByTheirWholeCost() {
        RateLimiter limiter = engine.limiter("gcra", TEN_PER_SECOND_BURST_5);

        assertDecision(limiter.tryAcquire("k", 3), allowed("gcra", 5, 2, T0 + 300 * MS));
        assertDecision(limiter.tryAcquire("k", 3), denied("gcra", 5, 2, 100 * MS, T0 + 300 * MS));
        assertDecision(limiter.tryAcquire("k", 5), denied("gcra", 5, 2, 300 * MS, T0 + 300 * MS));
        clock.advance(Duration.ofMillis(300));
        assertDecision(limiter.tryAcquire("k", 5), allowed("gcra", 5, 0, T0 + 800 * MS));
    }

    @Test
    void intervalIsRoundedUpToTheNanosecond() {
        Gcra threePerSecond = Gcra.of(3, Duration.ofSeconds(1), 1);
        assertThat(threePerSecond.nanosPerPermit()).isEqualTo(333_333_334L);
        RateLimiter limiter = engine.limiter("thirds", threePerSecond);

        limiter.tryAcquire("k");
        assertDecision(limiter.tryAcquire("k"), denied("thirds", 1, 0, 333_333_334L, T0 + 333_333_334L));
    }

    @Test
    void makesTheSameDecisionsAsATokenBucketOfCapacityBurst() {
        RateLimiter gcra = engine.limiter("gcra", TEN_PER_SECOND_BURST_5);
        RateLimiter bucket = engine.limiter("bucket", TokenBucket.of(5, 10, Duration.ofSeconds(1)));
        long[][] script = { // {advance ns, permits}
            {0, 3},
            {0, 3},
            {0, 2},
            {0, 1},
            {50 * MS, 1},
            {50 * MS, 1},
            {1, 1},
            {99_999_999, 1},
            {1, 2},
            {SECOND, 5},
            {0, 1},
            {333 * MS, 4},
            {67 * MS, 4},
            {10 * SECOND, 1},
            {0, 4},
            {0, 1},
            {250 * MS, 3}
        };
        int allowedCount = 0;
        for (long[] step : script) {
            clock.advanceNanos(step[0]);
            Decision byGcra = gcra.tryAcquire("k", step[1]);
            Decision byBucket = bucket.tryAcquire("k", step[1]);
            assertThat(withoutLease(byGcra))
                    .as("at %d ns for %d permits", clock.nanos() - T0, step[1])
                    .isEqualTo(new Decision(
                            byBucket.allowed(),
                            byBucket.remaining(),
                            byBucket.limit(),
                            byBucket.retryAfterNanos(),
                            byBucket.resetAtNanos(),
                            "gcra",
                            Lease.none()));
            allowedCount += byGcra.allowed() ? 1 : 0;
        }
        assertThat(allowedCount).isEqualTo(8);
    }
}
