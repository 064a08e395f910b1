package dev.sluice.internal.limit;

import static dev.sluice.internal.limit.AlgorithmSteps.assertIdleFrom;
import static dev.sluice.internal.limit.AlgorithmSteps.granted;
import static dev.sluice.internal.limit.AlgorithmSteps.leftAfterOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The sliding window counter with literal times: a chain's undo of a grant whose window has become the previous
 * one, when a key is idle, and a policy change to another window size.
 */
class SlidingCounterAlgorithmTest {
    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    /** The start of a 1 s window and of a 2 s one. */
    private static final long T = 1_000 * S;

    /** 10 permits per 1 s window. */
    private final SlidingCounterAlgorithm counter = counter(Duration.ofSeconds(1));

    private static SlidingCounterAlgorithm counter(Duration window) {
        return (SlidingCounterAlgorithm) Algorithm.of("api", SlidingWindowCounter.of(10, window), new ManualClock());
    }

    @Test
    void undoingAGrantOfTheWindowThatHasBecomeThePreviousOneTakesItFromThePreviousCount() {
        KeyState state = counter.newState();
        Decision chainGrant = granted(counter, state, T + 500 * MS, 4);
        granted(counter, state, T + S + 100 * MS, 1); // another request, in the next window: 4 are now previous
        assertThat(leftAfterOne(counter, state, T + S + 100 * MS))
                .as("4 × 0.9 weigh 4")
                .isEqualTo(4);

        counter.undo(state, T + S + 100 * MS, 4, chainGrant);

        assertThat(leftAfterOne(counter, state, T + S + 100 * MS)).isEqualTo(8);
    }

    @Test
    void undoingAGrantOfAWindowTheKeyHasLeftBehindChangesNothing() {
        KeyState state = counter.newState();
        Decision chainGrant = granted(counter, state, T + 500 * MS, 4);
        granted(counter, state, T + 1500 * MS, 2);
        granted(counter, state, T + 2 * S + 100 * MS, 1); // two windows on: previous 2, current 1, the 4 are gone

        counter.undo(state, T + 2 * S + 100 * MS, 4, chainGrant);

        assertThat(leftAfterOne(counter, state, T + 2 * S + 100 * MS)).isEqualTo(6);
        assertThat(leftAfterOne(counter, state, T + 3 * S))
                .as("the 1 of the window before weighs 1")
                .isEqualTo(8);
    }

    @Test
    void aKeyThatTookPermitsIsIdleExactlyTwoWindowsAfterTheWindowItTookThemIn() {
        KeyState state = counter.newState();
        assertThat(counter.isIdle(state, T)).as("nothing taken").isTrue();
        granted(counter, state, T + 500 * MS, 3);

        assertIdleFrom(counter, state, T + 2 * S);
    }

    @Test
    void aKeyWithOnlyAPreviousCountIsIdleWhenItsOwnWindowEnds() {
        KeyState state = counter.newState();
        granted(counter, state, T + 500 * MS, 3);
        counter.refund(state, T + S, 1); // moves the key to the next window: previous 2, current 0

        assertThat(leftAfterOne(counter, state, T + S)).isEqualTo(7);
        assertIdleFrom(counter, state, T + 2 * S);
    }

    @Test
    void aKeyWhosePermitsWereAllRefundedIsIdleAtOnce() {
        KeyState state = counter.newState();
        granted(counter, state, T + 500 * MS, 3);
        counter.refund(state, T + 500 * MS, 3);

        assertThat(counter.isIdle(state, T + 500 * MS)).isTrue();
    }

    @Test
    void aDenialReportsFullAgainOneWindowOnWhenOnlyThePreviousWindowCounts() {
        KeyState state = counter.newState();
        granted(counter, state, T + 500 * MS, 10);

        Decision denied = counter.acquire(state, T + S, 1, false);

        assertThat(denied.allowed()).isFalse();
        assertThat(denied.remaining()).isZero();
        assertThat(denied.retryAfterNanos())
                .as("10 × (1 − e) ≤ 9 from e = 0.1 s")
                .isEqualTo(100 * MS);
        assertThat(denied.resetAtNanos()).isEqualTo(T + 2 * S);
    }

    /** What one more permit leaves at {@code now} once {@code state} moves to a 2 s window at {@code now}. */
    private long leftUnderALongerWindowAt(KeyState state, long now) {
        SlidingCounterAlgorithm longer = counter(Duration.ofSeconds(2));
        longer.adopt(state, counter, now);
        return leftAfterOne(longer, state, now);
    }

    @Test
    void aLongerWindowKeepsWhatTheOldWindowBeforeTheCurrentOneCountedAsItsPreviousWindow() {
        KeyState state = counter.newState();
        granted(counter, state, T + 500 * MS, 6);

        // The old window before the current one had 6. In the 2 s window from T, 1.5 s in: 6 × 0.25 weigh 2
        // (rounded up).
        assertThat(leftUnderALongerWindowAt(state, T + 1500 * MS)).isEqualTo(7);
    }

    @Test
    void aLongerWindowKeepsTheCurrentAndPreviousCountsOfTheCurrentOldWindow() {
        KeyState state = counter.newState();
        granted(counter, state, T + 500 * MS, 3);
        granted(counter, state, T + 1200 * MS, 2); // previous 3, current 2

        // current 2, and 3 × 0.25 weigh 1 (rounded up): 7 left, 6 after one more.
        assertThat(leftUnderALongerWindowAt(state, T + 1500 * MS)).isEqualTo(6);
    }

    @Test
    void aLongerWindowDropsCountsOlderThanTheOldPreviousWindow() {
        KeyState state = counter.newState();
        granted(counter, state, T + 500 * MS, 6);

        assertThat(leftUnderALongerWindowAt(state, T + 2500 * MS)).isEqualTo(9);
    }
}
