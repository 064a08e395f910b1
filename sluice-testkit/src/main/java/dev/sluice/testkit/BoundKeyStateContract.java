package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RateLimiter#forKey} after its first call: a bound key checks every call's permits, is heard by the
 * limiter's listener whichever way it is asked. (A bound key dropped from a full key table: {@link
 * KeyTableContract}.)
 */
public abstract class BoundKeyStateContract extends ContractSupport {
    /** 2 permits, one back every 500 ms. */
    private static final TokenBucket TWO_PER_SECOND = TokenBucket.of(2, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected BoundKeyStateContract() {}

    @Test
    void aBoundKeyThatHasDecidedBeforeStillRejectsBadPermits() {
        KeyLimiter bound = engine.limiter("api", TWO_PER_SECOND).forKey("k");
        assertThat(bound.tryConsume()).isTrue();

        assertRejected(() -> bound.tryConsume(0), "permits", "between 1 and 2", "was 0");
        assertRejected(() -> bound.tryConsume(3), "permits", "between 1 and 2", "was 3");
        assertRejected(() -> bound.tryAcquire(3), "permits", "between 1 and 2", "was 3");
        assertThat(bound.available()).as("nothing taken by the rejected calls").isEqualTo(1);
    }

    @Test
    void theListenerHearsEveryCallOfABoundKey() {
        RecordingListener listener = new RecordingListener();
        KeyLimiter bound = engine.limiter(
                        "api",
                        TWO_PER_SECOND,
                        LimiterOptions.builder().listener(listener).build())
                .forKey("k");

        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isFalse();
        assertThat(bound.tryAcquire().denied()).isTrue();

        assertThat(listener.events)
                .containsExactly("allowed api k 1", "allowed api k 1", "denied api k 1", "denied api k 1");
    }
}
