package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A key's state without taking permits ({@link RateLimiter#peek}, {@link RateLimiter#available}), permits
 * given back ({@link RateLimiter#refund}, exact for each policy and never beyond the full limit), and a key put
 * back at its full limit ({@link RateLimiter#reset}).
 */
public abstract class LimiterStateContract extends ContractSupport {
    /** For subclasses, one per engine. */
    protected LimiterStateContract() {}

    static Stream<LimitPolicy> policiesOfThree() {
        return everyPolicy(3, Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @MethodSource("policiesOfThree")
    void peekAnswersAsTryAcquireWouldAndTakesNothing(LimitPolicy policy) {
        NamedLimiter limiter = limiterOf(engine, "api", policy);
        Decision fresh = limiter.peek("k", 3);
        assertThat(fresh.lease()).isSameAs(Lease.none());
        assertDecision(limiter.tryAcquire("other", 3), fresh);
        limiter.tryAcquire("k", 2);
        clock.advance(Duration.ofMillis(1));

        Decision peeked = limiter.peek("k", 1);
        assertThat(limiter.peek("k", 1)).as("peeking twice").isEqualTo(peeked);
        assertThat(peeked.lease()).isSameAs(Lease.none());
        assertThat(limiter.available("k")).isEqualTo(peeked.remaining() + 1);
        assertDecision(limiter.tryAcquire("k", 1), peeked);

        Decision peekedDenial = limiter.peek("k", 1);
        assertThat(peekedDenial.denied()).isTrue();
        assertThat(limiter.available("k")).isZero();
        assertDecision(limiter.tryAcquire("k", 1), peekedDenial);
    }

    @Test
    void peekMatchesTheNextTryAcquireOnEveryStepOfARandomHistory() {
        for (RatePolicy policy : LEASELESS_POLICIES) {
            playTwins(policy, 1_000, limiter -> (reference, permits, random, description) -> {
                String key = "k" + random.nextInt(3);
                Decision peeked = limiter.peek(key, permits);
                assertThat(limiter.tryAcquire(key, permits))
                        .as("%s for %s", description, key)
                        .isEqualTo(peeked)
                        .isEqualTo(reference.tryAcquire(key, permits));
            });
        }
    }

    @Test
    void availableCountsWholePermitsAsTheyComeBack() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        assertThat(limiter.available("k")).isEqualTo(10);
        limiter.tryAcquire("k", 3);
        assertThat(limiter.available("k")).isEqualTo(7);
        clock.advanceNanos(100 * MS - 1);
        assertThat(limiter.available("k")).isEqualTo(7);
        clock.advanceNanos(1);
        assertThat(limiter.available("k")).isEqualTo(8);
    }

    @Test
    void availableCountsTheLeasesNotHeld() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(3, Duration.ofSeconds(10)));
        Decision two = limiter.tryAcquire("k", 2);
        assertThat(limiter.available("k")).isEqualTo(1);
        two.release();
        assertThat(limiter.available("k")).isEqualTo(3);
    }

    @Test
    void aTokenBucketRefundGivesTokensBackUpToItsCapacity() {
        RateLimiter limiter = engine.limiter("tb", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 10);

        limiter.refund("k", 4);

        assertThat(limiter.available("k")).isEqualTo(4);
        assertDecision(limiter.tryAcquire("k", 4), allowed("tb", 10, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("tb", 10, 0, 100 * MS, T0 + SECOND));

        limiter.tryAcquire("full", 2);
        limiter.refund("full", 5);
        limiter.refund("never-seen", 5);
        assertDecision(limiter.tryAcquire("full", 10), allowed("tb", 10, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("never-seen", 10), allowed("tb", 10, 0, T0 + SECOND));
    }

    @Test
    void aFixedWindowRefundLowersTheCurrentWindowsCountOnly() {
        RateLimiter limiter = engine.limiter("fw", FixedWindow.of(5, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 5);

        limiter.refund("k", 2);
        assertDecision(limiter.tryAcquire("k", 2), allowed("fw", 5, 0, T0 + SECOND));

        clock.advance(Duration.ofSeconds(1));
        limiter.refund("k", 3); // the permits of the last window are back already
        assertThat(limiter.available("k")).isEqualTo(5);
        assertDecision(limiter.tryAcquire("k", 5), allowed("fw", 5, 0, T0 + 2 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, SECOND, T0 + 2 * SECOND));
    }

    @Test
    void aSlidingCounterRefundLowersTheCurrentWindowThenThePreviousOne() {
        RateLimiter limiter = engine.limiter("swc", SlidingWindowCounter.of(10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 6);
        clock.advance(Duration.ofMillis(1500)); // the previous 6 weigh 3
        assertDecision(limiter.tryAcquire("k", 2), allowed("swc", 10, 5, T0 + 3 * SECOND));

        limiter.refund("k", 3); // current 2 → 0, previous 6 → 5, which weigh 5 − ⌊5 × 0.5⌋ = 3

        assertThat(limiter.available("k")).isEqualTo(7);
        assertDecision(limiter.tryAcquire("k", 7), allowed("swc", 10, 0, T0 + 3 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("swc", 10, 0, 100 * MS, T0 + 3 * SECOND));
    }

    @Test
    void aSlidingLogRefundForgetsTheNewestGrantsFirst() {
        RateLimiter limiter = engine.limiter("log", SlidingWindowLog.of(5, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 2);
        clock.advance(Duration.ofMillis(400));
        limiter.tryAcquire("k", 2);

        limiter.refund("k", 3); // the 2 of T0 + 400 ms, then 1 of T0

        assertThat(limiter.available("k")).isEqualTo(4);
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k", 5), denied("log", 5, 4, 500 * MS, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k", 4), allowed("log", 5, 0, T0 + 1500 * MS));
        clock.advance(Duration.ofMillis(500)); // the permit left of T0 leaves the window
        assertDecision(limiter.tryAcquire("k"), allowed("log", 5, 0, T0 + 2 * SECOND));
    }

    @ParameterizedTest
    @MethodSource("policiesOfThree")
    void resetPutsAKeyBackAtItsFullLimit(LimitPolicy policy) {
        NamedLimiter limiter = limiterOf(engine, "api", policy);
        Decision taken = limiter.tryAcquire("k", 3);
        clock.advance(Duration.ofMillis(1));

        limiter.reset("k");

        assertThat(limiter.available("k")).isEqualTo(3);
        assertDecision(limiter.tryAcquire("k", 3), limiter.tryAcquire("fresh", 3));
        assertThat(taken.release()).as("a lease dropped by the reset").isFalse();
        assertThat(limiter.tryAcquire("k").denied()).isTrue();
    }

    @Test
    void resetOfAKeyNeverSeenChangesNothing() {
        RateLimiter limiter = engine.limiter("tb", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.reset("k");
        assertDecision(limiter.tryAcquire("k", 10), allowed("tb", 10, 0, T0 + SECOND));
    }

    @Test
    void aBoundKeyPeeksRefundsAndResetsItsKey() {
        RateLimiter limiter = engine.limiter("fw", FixedWindow.of(5, Duration.ofSeconds(1)));
        KeyLimiter bound = limiter.forKey("k");
        bound.tryAcquire(3);

        assertThat(bound.available()).isEqualTo(2);
        bound.refund(1);
        assertDecision(bound.peek(1), allowed("fw", 5, 2, T0 + SECOND));
        assertThat(limiter.available("k")).isEqualTo(3);
        bound.reset();
        assertThat(limiter.available("k")).isEqualTo(5);
        assertDecision(bound.tryAcquire(5), allowed("fw", 5, 0, T0 + SECOND));
    }

    @Test
    void peekRefundAndResetTellTheListenerNothing() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "fw",
                FixedWindow.of(5, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(listener).build());

        limiter.peek("k", 1);
        limiter.available("k");
        limiter.refund("k", 1);
        limiter.reset("k");

        assertThat(listener.events).isEmpty();
    }

    @Test
    void badArgumentsAreRejectedAndChangeNothing() {
        RateLimiter limiter = engine.limiter("fw", FixedWindow.of(5, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        assertRejected(() -> limiter.peek("k", 0), "permits", "between 1 and 5", "was 0");
        assertRejected(() -> limiter.peek("k", 6), "permits", "between 1 and 5", "was 6");
        assertRejected(() -> limiter.refund("k", 0), "permits", "between 1 and 5", "was 0");
        assertRejected(() -> limiter.refund("k", 6), "permits", "between 1 and 5", "was 6");
        assertRejected(() -> limiter.peek(null, 1), "key", "null");
        assertRejected(() -> limiter.available(""), "key", "empty");
        assertRejected(() -> limiter.refund(null, 1), "key", "null");
        assertRejected(() -> limiter.reset(null), "key", "null");
        assertRejected(() -> limiter.reset("k".repeat(RateLimiter.MAX_KEY_LENGTH + 1)), "key", "characters");

        assertThat(limiter.available("k")).isEqualTo(2);
    }
}
