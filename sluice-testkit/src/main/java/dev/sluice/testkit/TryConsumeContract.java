package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link RateLimiter#tryConsume}: the yes-or-no form of {@code tryAcquire}, with the same decisions. */
public abstract class TryConsumeContract extends ContractSupport {
    private static final List<LimitPolicy> POLICIES = List.of(
            TokenBucket.of(5, 2, Duration.ofMillis(10)),
            Gcra.of(3, Duration.ofMillis(9), 2),
            FixedWindow.of(4, Duration.ofMillis(10)),
            SlidingWindowCounter.of(4, Duration.ofMillis(10)),
            SlidingWindowLog.of(4, Duration.ofMillis(10)));

    @Test
    void answersExactlyAsTryAcquireOnTheSameHistory() {
        for (LimitPolicy policy : POLICIES) {
            ManualClock twinClock = new ManualClock(clock.instant());
            Sluice twin = engineOn(twinClock);
            String name = policy.getClass().getSimpleName();
            RateLimiter consuming = engine.limiter(name, policy);
            RateLimiter acquiring = twin.limiter(name, policy);
            SplittableRandom random = new SplittableRandom(policy.hashCode());
            for (int step = 0; step < 2_000; step++) {
                long advance = random.nextLong(0, 3 * MS);
                clock.advanceNanos(advance);
                twinClock.advanceNanos(advance);
                String key = "k" + random.nextInt(3);
                long permits = random.nextLong(1, policy.limit() + 1);

                boolean consumed = consuming.tryConsume(key, permits);
                Decision acquired = acquiring.tryAcquire(key, permits);

                assertThat(consumed)
                        .as("%s, step %d: %d permits for %s", policy, step, permits, key)
                        .isEqualTo(acquired.allowed());
            }
        }
    }

    @Test
    void takesOnePermitByDefault() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(2, Duration.ofSeconds(1)));

        assertThat(limiter.tryConsume("k")).isTrue();
        assertThat(limiter.tryConsume("k")).isTrue();
        assertThat(limiter.tryConsume("k")).isFalse();
        assertDecision(limiter.tryAcquire("k"), denied("api", 2, 0, 500 * MS, T0 + SECOND));
    }

    @Test
    void tellsTheListenerAsTryAcquireDoes() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "api",
                TokenBucket.of(1, Duration.ofSeconds(1)),
                LimiterOptions.defaults().withListener(listener));

        limiter.tryConsume("k");
        limiter.tryConsume("k");

        assertThat(listener.events).containsExactly("allowed api k 1", "denied api k 1");
    }

    @Test
    void refusesLeasesItCouldNotReleaseAndTakesNothing() {
        RateLimiter limiter = engine.limiter("pool", ConcurrencyLimit.of(1, Duration.ofSeconds(5)));

        assertThatThrownBy(() -> limiter.tryConsume("k"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("pool")
                .hasMessageContaining("tryAcquire");
        assertThat(limiter.tryAcquire("k").allowed()).isTrue();
    }

    @Test
    void rejectsBadInputLikeTryAcquire() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(3, Duration.ofSeconds(1)));

        assertRejected(() -> limiter.tryConsume(null, 1), "key", "null");
        assertRejected(() -> limiter.tryConsume("", 1), "key", "empty");
        assertRejected(() -> limiter.tryConsume("k", 0), "permits", "between 1 and 3", "was 0");
        assertRejected(() -> limiter.tryConsume("k", 4), "permits", "between 1 and 3", "was 4");
        assertDecision(limiter.tryAcquire("k", 3), allowed("api", 3, 0, T0 + 3 * 333_333_334L));
    }
}
