package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RateLimiter#setPolicy}: the new policy applies from now on, what keys have taken is kept, and
 * only a policy of the same kind is accepted.
 */
public abstract class SetPolicyContract extends ContractSupport {
    /** For subclasses, one per engine. */
    protected SetPolicyContract() {}

    @Test
    void tokenBucketKeepsWhatWasTakenAndRefillsAtTheNewRate() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3); // 3 of 10 used, 300 ms of refill at 100 ms a permit

        TokenBucket slower = TokenBucket.of(10, 5, Duration.ofSeconds(1)); // 200 ms a permit
        limiter.setPolicy(slower);

        assertThat(limiter.policy()).isEqualTo(slower);
        // still 3 used: 600 ms of refill at the new rate
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 6, T0 + 800 * MS));
        assertDecision(limiter.tryAcquire("k", 6), allowed("api", 10, 0, T0 + 2 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 200 * MS, T0 + 2 * SECOND));
    }

    @Test
    void tokenBucketGrowsCapacityKeepingWhatWasTaken() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(5, 5, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 5);

        limiter.setPolicy(TokenBucket.of(10, 10, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k", 5), allowed("api", 10, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 100 * MS, T0 + SECOND));
    }

    @Test
    void tokenBucketShrunkBelowWhatWasTakenDeniesWithZeroRemaining() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        limiter.setPolicy(TokenBucket.of(2, 10, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k"), denied("api", 2, 0, 200 * MS, T0 + 300 * MS));
        assertRejected(() -> limiter.tryAcquire("k", 3), "permits", "between 1 and 2", "3");
        clock.advance(Duration.ofMillis(200));
        assertDecision(limiter.tryAcquire("k"), allowed("api", 2, 0, T0 + 400 * MS));
    }

    @Test
    void gcraKeepsWhatWasTakenAndSpacesAtTheNewRate() {
        RateLimiter limiter = engine.limiter("gcra", Gcra.of(10, Duration.ofSeconds(1), 5));
        limiter.tryAcquire("k", 5); // 500 ms ahead at 100 ms a permit

        limiter.setPolicy(Gcra.of(20, Duration.ofSeconds(1), 5)); // 50 ms a permit: 250 ms ahead

        assertDecision(limiter.tryAcquire("k"), denied("gcra", 5, 0, 50 * MS, T0 + 250 * MS));
        clock.advance(Duration.ofMillis(50));
        assertDecision(limiter.tryAcquire("k"), allowed("gcra", 5, 0, T0 + 300 * MS));
    }

    @Test
    void fixedWindowKeepsTheCountOfTheCurrentWindowUnderAHigherLimit() {
        RateLimiter limiter = engine.limiter("fw", FixedWindow.of(5, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        limiter.setPolicy(FixedWindow.of(10, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k", 7), allowed("fw", 10, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("fw", 10, 0, SECOND, T0 + SECOND));
    }

    @Test
    void fixedWindowLoweredBelowTheCurrentCountDeniesWithZeroRemaining() {
        RateLimiter limiter = engine.limiter("fw", FixedWindow.of(5, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        limiter.setPolicy(FixedWindow.of(2, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k"), denied("fw", 2, 0, SECOND, T0 + SECOND));
        clock.advance(Duration.ofSeconds(1));
        assertDecision(limiter.tryAcquire("k", 2), allowed("fw", 2, 0, T0 + 2 * SECOND));
    }

    @Test
    void slidingCounterKeepsItsCountsUnderAHigherLimit() {
        RateLimiter limiter = engine.limiter("swc", SlidingWindowCounter.of(10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 6);

        limiter.setPolicy(SlidingWindowCounter.of(20, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k", 14), allowed("swc", 20, 0, T0 + 2 * SECOND));
        assertThat(limiter.tryAcquire("k").denied()).isTrue();
    }

    @Test
    void slidingCounterLoweredBelowItsCountDeniesWithZeroRemaining() {
        RateLimiter limiter = engine.limiter("swc", SlidingWindowCounter.of(10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 6);

        limiter.setPolicy(SlidingWindowCounter.of(4, Duration.ofSeconds(1)));

        Decision decision = limiter.tryAcquire("k");
        assertThat(decision.denied()).isTrue();
        assertThat(decision.remaining()).isZero();
        assertThat(decision.limit()).isEqualTo(4);
    }

    @Test
    void slidingLogKeepsGrantTimesAndTheNewWindowDecidesWhenTheyLeave() {
        RateLimiter limiter = engine.limiter("log", SlidingWindowLog.of(3, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        limiter.setPolicy(SlidingWindowLog.of(3, Duration.ofSeconds(2)));

        clock.advance(Duration.ofSeconds(1));
        assertDecision(limiter.tryAcquire("k"), denied("log", 3, 0, SECOND, T0 + 2 * SECOND));
        clock.advance(Duration.ofSeconds(1));
        assertDecision(limiter.tryAcquire("k", 3), allowed("log", 3, 0, T0 + 4 * SECOND));
    }

    @Test
    void slidingLogLoweredBelowWhatWasTakenDeniesWithZeroRemaining() {
        RateLimiter limiter = engine.limiter("log", SlidingWindowLog.of(3, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        limiter.setPolicy(SlidingWindowLog.of(2, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("k"), denied("log", 2, 0, SECOND, T0 + SECOND));
    }

    @Test
    void concurrencyLimitKeepsHeldLeasesUnderTheNewMaximum() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(2, Duration.ofSeconds(10)));
        Decision first = limiter.tryAcquire("k");
        Decision second = limiter.tryAcquire("k");

        limiter.setPolicy(ConcurrencyLimit.of(3, Duration.ofSeconds(10)));
        Decision third = limiter.tryAcquire("k");
        assertDecision(third, allowed("conc", 3, 0, T0 + 10 * SECOND));

        limiter.setPolicy(ConcurrencyLimit.of(1, Duration.ofSeconds(10)));
        assertDecision(limiter.tryAcquire("k"), denied("conc", 1, 0, 10 * SECOND, T0 + 10 * SECOND));

        assertThat(first.release()).isTrue();
        assertThat(second.release()).isTrue();
        assertThat(limiter.tryAcquire("k").denied()).isTrue();
        assertThat(third.release()).isTrue();
        assertDecision(limiter.tryAcquire("k"), allowed("conc", 1, 0, T0 + 10 * SECOND));
    }

    @Test
    void everyKeyKeepsItsOwnState() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("a", 2);
        limiter.tryAcquire("b", 8);

        limiter.setPolicy(TokenBucket.of(10, 5, Duration.ofSeconds(1)));

        assertDecision(limiter.tryAcquire("a"), allowed("api", 10, 7, T0 + 600 * MS));
        assertDecision(limiter.tryAcquire("b"), allowed("api", 10, 1, T0 + 1800 * MS));
        assertDecision(limiter.tryAcquire("c"), allowed("api", 10, 9, T0 + 200 * MS));
    }

    @Test
    void theRegistryReturnsTheLimiterWithItsUpdatedPolicy() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.perSecond(10));
        limiter.setPolicy(TokenBucket.perSecond(20));

        assertThat(engine.limiter("api", TokenBucket.perSecond(20))).isSameAs(limiter);
        assertRejected(
                () -> engine.limiter("api", TokenBucket.perSecond(10)),
                "'api'",
                TokenBucket.perSecond(20).toString(),
                TokenBucket.perSecond(10).toString(),
                "setPolicy");
    }

    @Test
    void rejectsAPolicyOfAnotherKindAndKeepsPolicyAndState() {
        TokenBucket bucket = TokenBucket.of(10, 10, Duration.ofSeconds(1));
        RateLimiter limiter = engine.limiter("api", bucket);
        limiter.tryAcquire("k", 3);

        assertRejected(
                () -> limiter.setPolicy(FixedWindow.of(100, Duration.ofSeconds(1))),
                "api",
                "TokenBucket",
                "FixedWindow");
        assertRejected(() -> limiter.setPolicy(Gcra.of(10, Duration.ofSeconds(1), 10)), "TokenBucket", "Gcra");

        assertThat(limiter.policy()).isEqualTo(bucket);
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 6, T0 + 400 * MS));
    }

    @Test
    void rejectsANullPolicyAndKeepsPolicyAndState() {
        FixedWindow window = FixedWindow.of(5, Duration.ofSeconds(1));
        RateLimiter limiter = engine.limiter("fw", window);
        limiter.tryAcquire("k", 2);

        assertRejected(() -> limiter.setPolicy(null), "policy", "null");

        assertThat(limiter.policy()).isEqualTo(window);
        assertDecision(limiter.tryAcquire("k"), allowed("fw", 5, 2, T0 + SECOND));
    }
}
