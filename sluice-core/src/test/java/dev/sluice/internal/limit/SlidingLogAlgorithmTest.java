package dev.sluice.internal.limit;

import static dev.sluice.internal.limit.AlgorithmSteps.assertIdleFrom;
import static dev.sluice.internal.limit.AlgorithmSteps.granted;
import static dev.sluice.internal.limit.AlgorithmSteps.leftAfterOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The sliding log's ring buffer with literal times: grants at many distinct instants (so that the ring grows and
 * wraps around), refunds (the newest permits go) and a chain's undo (the grant's own entry goes), each read back
 * through what the log then allows and when its key is idle.
 */
class SlidingLogAlgorithmTest {
    private static final long S = 1_000_000_000L;
    private static final long T = 1_000 * S;

    /** 10 permits per 1 s sliding window. */
    private final SlidingLogAlgorithm log = log(10);

    private static SlidingLogAlgorithm log(long limit) {
        return (SlidingLogAlgorithm)
                Algorithm.of("api", SlidingWindowLog.of(limit, Duration.ofSeconds(1)), new ManualClock());
    }

    @Test
    void eachGrantLeavesTheWindowAtItsOwnTimeNotWithAnEarlierOne() {
        KeyState state = log.newState();
        granted(log, state, T, 1);
        granted(log, state, T + S / 2, 1);

        assertThat(leftAfterOne(log, state, T + S - 1)).isEqualTo(7);
        assertThat(leftAfterOne(log, state, T + S))
                .as("the grant at T has left")
                .isEqualTo(8);
        assertThat(leftAfterOne(log, state, T + S + S / 2 - 1)).isEqualTo(8);
        assertThat(leftAfterOne(log, state, T + S + S / 2)).isEqualTo(9);
    }

    @Test
    void aPeekForSeveralPermitsReportsWhatTakingThemWouldLeave() {
        KeyState state = log.newState();
        granted(log, state, T, 2);

        Decision peek = log.acquire(state, T, 3, false);

        assertThat(peek.allowed()).isTrue();
        assertThat(peek.remaining()).isEqualTo(5);
        assertThat(peek.resetAtNanos()).isEqualTo(T + S);
        assertThat(leftAfterOne(log, state, T)).as("the peek took nothing").isEqualTo(7);
    }

    @Test
    void aGrantAfterEverythingWasRefundedIsAnEntryOfItsOwnThatLeavesTheWindow() {
        SlidingLogAlgorithm two = log(2);
        KeyState state = two.newState();
        granted(two, state, T, 1);
        granted(two, state, T + 1, 1);
        two.refund(state, T + 1, 2);
        granted(two, state, T + 1, 1);

        assertThat(leftAfterOne(two, state, T + 1 + S - 1)).isZero();
        assertThat(leftAfterOne(two, state, T + 1 + S))
                .as("the last grant has left")
                .isEqualTo(1);
    }

    @Test
    void aGrantAfterARefundOfTheNewestEntriesIsCountedAtItsOwnTime() {
        KeyState state = log.newState();
        for (long t = T; t < T + 4; t++) {
            granted(log, state, t, 1); // four entries: the ring grows to four slots
        }
        log.refund(state, T + 3, 2); // the entries of T + 2 and T + 3 go
        granted(log, state, T + 3, 1);

        assertThat(leftAfterOne(log, state, T + 1 + S))
                .as("T and T + 1 have left, T + 3 counts")
                .isEqualTo(8);
        assertThat(leftAfterOne(log, state, T + 3 + S)).isEqualTo(9);
    }

    @Test
    void aCallerWithAnOlderClockReadingIsDecidedAtTheNewestGrant() {
        KeyState state = log.newState();
        granted(log, state, T, 1);
        granted(log, state, T + 1, 1);
        granted(log, state, T + 2, 1);

        Decision late = granted(log, state, T - 5, 1);

        assertThat(late.resetAtNanos()).as("counted at T + 2, the newest grant").isEqualTo(T + 2 + S);
        assertThat(leftAfterOne(log, state, T + 2 + S - 1))
                .as("only the grants at T + 2 are left")
                .isEqualTo(7);
    }

    @Test
    void aCallerWithAnOlderClockReadingAfterEverythingWasRefundedIsDecidedAtItsOwnTime() {
        KeyState state = log.newState();
        granted(log, state, T, 1);
        granted(log, state, T + 5, 1);
        log.refund(state, T + 5, 2);

        Decision late = granted(log, state, T, 1);

        assertThat(late.resetAtNanos()).isEqualTo(T + S);
    }

    @Test
    void undoingTheOnlyGrantLeavesTheKeyAtItsFullLimit() {
        KeyState state = log.newState();
        Decision granted = granted(log, state, T, 3);

        log.undo(state, T, 3, granted);

        assertThat(leftAfterOne(log, state, T)).isEqualTo(9);
        granted(log, state, T + 1, 1);
        assertThat(leftAfterOne(log, state, T + 1 + S - 1)).isEqualTo(8);
        assertThat(leftAfterOne(log, state, T + 1 + S))
                .as("the later grant has left")
                .isEqualTo(9);
        assertThat(log.isIdle(state, T + 1 + S)).isTrue();
    }

    @Test
    void undoingTheNewestGrantLeavesNoEmptyEntryBehind() {
        KeyState state = log.newState();
        granted(log, state, T, 1);
        granted(log, state, T + 1, 1);
        Decision newest = granted(log, state, T + 2, 1);

        log.undo(state, T + 2, 1, newest);

        Decision denied = log.acquire(state, T + 3, 10, false);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.remaining()).isEqualTo(8);
        assertThat(denied.resetAtNanos()).as("full again when T + 1 leaves").isEqualTo(T + 1 + S);
        assertThat(log.isIdle(state, T + 1 + S)).isTrue();
    }

    /** Grants at T .. T + 2, then one at T + 1 s: T has left, the ring (four slots) starts at its second slot. */
    private KeyState wrapped() {
        KeyState state = log.newState();
        granted(log, state, T, 1);
        granted(log, state, T + 1, 1);
        granted(log, state, T + 2, 1);
        granted(log, state, T + S, 1);
        return state;
    }

    /** What one more permit would leave at each of {@code instants}, in order, taking nothing. */
    private List<Long> leftAfterOneAt(KeyState state, long... instants) {
        return LongStream.of(instants)
                .mapToObj(now -> leftAfterOne(log, state, now))
                .toList();
    }

    @Test
    void undoingAGrantInTheMiddleOfAWrappedRingTakesItsOwnEntry() {
        KeyState state = wrapped();
        Decision middle = new Decision(true, 0, 10, 0, T + 2 + S, "api", dev.sluice.limit.Lease.none());

        log.undo(state, T + S, 1, middle);

        // at T + 2 + 1 s: T + 1 has left, T + 2 was undone, T + 1 s counts
        assertThat(leftAfterOneAt(state, T + S, T + 2 + S)).containsExactly(7L, 8L);
    }

    @Test
    void aRefundInAWrappedRingTakesTheNewestEntriesFirst() {
        KeyState state = wrapped();

        log.refund(state, T + S, 2); // the grants at T + 1 s and T + 2 go

        // at T + 1 + 1 s: T + 1, the one left, has left
        assertThat(leftAfterOneAt(state, T + S, T + 1 + S)).containsExactly(8L, 9L);
    }

    @Test
    void aRefundOfMoreThanIsCountedTakesNothingFromGrantsThatHaveLeftTheWindow() {
        KeyState state = log.newState();
        granted(log, state, T, 1);
        granted(log, state, T + S, 1); // the grant at T has left

        log.refund(state, T + S, 5);

        assertThat(granted(log, state, T + S, 10).remaining())
                .as("10 of 10, not more")
                .isZero();
    }

    @Test
    void undoingAGrantThatHasAlreadyLeftTheWindowChangesNothing() {
        KeyState state = wrapped();
        Decision gone = new Decision(true, 9, 10, 0, T + S, "api", dev.sluice.limit.Lease.none());

        log.undo(state, T + S, 1, gone);

        assertThat(leftAfterOne(log, state, T + S)).isEqualTo(6);
    }

    @Test
    void aKeyIsIdleFromTheInstantItsNewestGrantLeavesTheWindow() {
        KeyState state = log.newState();
        assertThat(log.isIdle(state, T)).as("nothing taken").isTrue();
        granted(log, state, T, 1);
        granted(log, state, T + 1, 1);
        granted(log, state, T + 2, 1);

        assertThat(log.isIdle(state, T + S)).as("T has left, T + 2 has not").isFalse();
        assertIdleFrom(log, state, T + 2 + S);
    }
}
