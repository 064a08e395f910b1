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
 * limiter's listener whichever way it is asked, and keeps deciding exactly after its key was dropped from a full
 * table.
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
                        "api", TWO_PER_SECOND, LimiterOptions.defaults().withListener(listener))
                .forKey("k");

        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isFalse();
        assertThat(bound.tryAcquire().denied()).isTrue();

        assertThat(listener.events)
                .containsExactly("allowed api k 1", "allowed api k 1", "denied api k 1", "denied api k 1");
    }

    /**
     * Key k of a limiter of {@link #TWO_PER_SECOND} and one key at most, bound and used up, then dropped 1 s later,
     * when it is idle, for key "other", which takes {@code otherTakes} permits.
     */
    private KeyLimiter droppedForOther(long otherTakes) {
        RateLimiter limiter =
                engine.limiter("api", TWO_PER_SECOND, LimiterOptions.defaults().withMaxKeys(1));
        KeyLimiter bound = limiter.forKey("k");
        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThat(limiter.tryAcquire("other", otherTakes).allowed())
                .as("other takes k's slot")
                .isTrue();
        return bound;
    }

    @Test
    void aBoundKeyDroppedFromAFullTableWhileIdleComesBackAtItsFullLimit() {
        KeyLimiter bound = droppedForOther(1);
        clock.advance(Duration.ofSeconds(1)); // other is idle too

        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).as("2 permits, as for a key never seen").isFalse();
        assertThat(bound.available()).isZero();
    }

    @Test
    void aBoundKeyDroppedWhileEveryTrackedKeyIsBusySharesTheOverflow() {
        KeyLimiter bound = droppedForOther(2);
        assertThat(bound.limiter().tryAcquire("untracked", 2).allowed())
                .as("the overflow's 2")
                .isTrue();

        assertThat(bound.tryConsume()).as("k is in the exhausted overflow").isFalse();
        assertThat(bound.tryAcquire().denied()).isTrue();
        clock.advance(Duration.ofMillis(500));
        assertThat(bound.tryConsume()).as("one back in the overflow").isTrue();
    }
}
