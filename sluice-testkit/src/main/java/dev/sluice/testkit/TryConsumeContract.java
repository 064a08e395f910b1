package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link RateLimiter#tryConsume}: the yes-or-no form of {@code tryAcquire}, with the same decisions. */
public abstract class TryConsumeContract extends ContractSupport {
    /** For subclasses, one per engine. */
    protected TryConsumeContract() {}

    @Test
    void answersExactlyAsTryAcquireOnTheSameHistory() {
        for (RatePolicy policy : LEASELESS_POLICIES) {
            playTwins(policy, 2_000, limiter -> (reference, permits, random, description) -> {
                String key = "k" + random.nextInt(3);
                assertThat(limiter.tryConsume(key, permits))
                        .as("%s for %s", description, key)
                        .isEqualTo(reference.tryAcquire(key, permits).allowed());
            });
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
                LimiterOptions.builder().listener(listener).build());

        limiter.tryConsume("k");
        limiter.tryConsume("k");

        assertThat(listener.events).containsExactly("allowed api k 1", "denied api k 1");
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
