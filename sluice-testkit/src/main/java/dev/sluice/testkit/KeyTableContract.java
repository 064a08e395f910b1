package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link LimiterOptions#maxKeys()}: idle keys are dropped to make room (and heard as evicted); when every
 * tracked key is busy, new keys share one overflow state worth one key's limit, and a key that later gets
 * its own slot starts as used as the overflow.
 */
public abstract class KeyTableContract extends ContractSupport {
    /** 2 permits, one back every 500 ms. */
    private static final TokenBucket TWO_PER_SECOND = TokenBucket.of(2, Duration.ofSeconds(1));

    private final RecordingListener listener = new RecordingListener();

    /** For subclasses, one per engine. */
    protected KeyTableContract() {}

    private RateLimiter twoKeys() {
        return engine.limiter(
                "lim",
                TWO_PER_SECOND,
                LimiterOptions.builder().maxKeys(2).listener(listener).build());
    }

    @Test
    void newKeysShareOneOverflowLimitWhileEveryTrackedKeyIsBusy() {
        RateLimiter limiter = twoKeys();
        limiter.tryAcquire("a", 2);
        limiter.tryAcquire("b", 2);

        assertDecision(limiter.tryAcquire("c"), allowed("lim", 2, 1, T0 + 500 * MS));
        assertDecision(limiter.tryAcquire("d"), allowed("lim", 2, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("e"), denied("lim", 2, 0, 500 * MS, T0 + SECOND));
        // the tracked keys keep their own state
        assertDecision(limiter.tryAcquire("a"), denied("lim", 2, 0, 500 * MS, T0 + SECOND));

        assertThat(listener.events)
                .containsExactly(
                        "allowed lim a 2",
                        "allowed lim b 2",
                        "full lim c",
                        "allowed lim c 1",
                        "full lim d",
                        "allowed lim d 1",
                        "full lim e",
                        "denied lim e 1",
                        "denied lim a 1");
    }

    @Test
    void idleKeysAreDroppedToMakeRoomAndComeBackAtTheirFullLimit() {
        RateLimiter limiter = twoKeys();
        limiter.tryAcquire("a");
        limiter.tryAcquire("b");
        clock.advance(Duration.ofMillis(500)); // a and b are full again: idle

        assertDecision(limiter.tryAcquire("c", 2), allowed("lim", 2, 0, T0 + 1500 * MS));
        assertDecision(limiter.tryAcquire("a", 2), allowed("lim", 2, 0, T0 + 1500 * MS));

        assertThat(listener.events).contains("evicted lim a", "evicted lim b").doesNotContain("full lim c");
        assertThat(listener.events.stream().filter(e -> e.startsWith("full"))).isEmpty();
    }

    @Test
    void aKeyLeavingTheOverflowKeepsWhatTheOverflowHadTaken() {
        RateLimiter limiter = twoKeys();
        limiter.tryAcquire("a", 1); // idle at T0 + 500 ms
        limiter.tryAcquire("b", 2); // idle at T0 + 1 s
        assertDecision(limiter.tryAcquire("c", 2), allowed("lim", 2, 0, T0 + SECOND)); // in the overflow

        clock.advance(Duration.ofMillis(500)); // a is idle: c gets its own slot, as used as the overflow
        assertDecision(limiter.tryAcquire("c"), allowed("lim", 2, 0, T0 + 1500 * MS));
        assertDecision(limiter.tryAcquire("c"), denied("lim", 2, 0, 500 * MS, T0 + 1500 * MS));

        assertThat(listener.events)
                .containsExactly(
                        "allowed lim a 1",
                        "allowed lim b 2",
                        "full lim c",
                        "allowed lim c 2",
                        "evicted lim a",
                        "allowed lim c 1",
                        "denied lim c 1");
    }

    @Test
    void idleKeysAreDroppedWithinAMinuteEvenWhenTheTableHasRoom() {
        RateLimiter limiter = engine.limiter(
                "lim",
                TWO_PER_SECOND,
                LimiterOptions.builder().listener(listener).build());
        limiter.tryAcquire("a");
        clock.advance(Duration.ofSeconds(61));

        assertDecision(limiter.tryAcquire("b"), allowed("lim", 2, 1, T0 + 61 * SECOND + 500 * MS));
        assertDecision(limiter.tryAcquire("a", 2), allowed("lim", 2, 0, T0 + 62 * SECOND));

        assertThat(listener.events).contains("evicted lim a");
    }

    /**
     * A sliding window counter's key is idle, and may be dropped, from the instant its last window stops
     * counting (two windows after the one it took permits in), not a nanosecond before.
     */
    @Test
    void aSlidingCounterKeyIsDroppedExactlyWhenItsPreviousWindowStopsCounting() {
        RateLimiter limiter = engine.limiter(
                "lim",
                SlidingWindowCounter.of(10, Duration.ofSeconds(1)),
                LimiterOptions.builder().maxKeys(1).listener(listener).build());
        limiter.tryAcquire("a", 10);
        clock.advanceNanos(2 * SECOND - 1); // a's 10 still weigh 1
        limiter.tryAcquire("b");
        clock.advanceNanos(1);
        limiter.tryAcquire("c");

        assertThat(listener.events)
                .containsExactly(
                        "allowed lim a 10", "full lim b", "allowed lim b 1", "evicted lim a", "allowed lim c 1");
    }

    /**
     * A key decided against the overflow has no state of its own: a refund gives the permits back to the
     * overflow, where it took them, and a reset leaves the overflow as it is, since that would reset every other
     * key in it.
     */
    @Test
    void refundsOfAnUntrackedKeyGoToTheOverflowAndResetsLeaveIt() {
        RateLimiter limiter = twoKeys();
        limiter.tryAcquire("a", 2);
        limiter.tryAcquire("b", 2);
        assertDecision(limiter.tryAcquire("c", 2), allowed("lim", 2, 0, T0 + SECOND)); // in the overflow

        limiter.reset("c");
        assertDecision(limiter.tryAcquire("d"), denied("lim", 2, 0, 500 * MS, T0 + SECOND));

        limiter.refund("c", 1);
        assertDecision(limiter.tryAcquire("d"), allowed("lim", 2, 0, T0 + SECOND));
        assertThat(limiter.available("a"))
                .as("tracked keys keep their own state")
                .isZero();
    }

    /**
     * Key k of a limiter of {@link #TWO_PER_SECOND} and one key at most, bound and used up, then dropped 1 s later,
     * when it is idle, for key "other", which takes {@code otherTakes} permits.
     */
    private KeyLimiter droppedForOther(long otherTakes) {
        RateLimiter limiter = engine.limiter(
                "api", TWO_PER_SECOND, LimiterOptions.builder().maxKeys(1).build());
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
