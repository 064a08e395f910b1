package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The ramp after a pause by a rate-limited result, on literal times. */
class RecoveryTest {
    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;

    @Test
    void aQuarterInTheFirstSecondAfterThePauseHalfInTheNextThenWhole() {
        long until = 100 * S;
        assertThat(Recovery.share(until, until)).isEqualTo(0.25);
        assertThat(Recovery.share(until, until + S - 1)).isEqualTo(0.25);
        assertThat(Recovery.share(until, until + S)).isEqualTo(0.5);
        assertThat(Recovery.share(until, until + 2 * S - 1)).isEqualTo(0.5);
        assertThat(Recovery.share(until, until + 2 * S)).isEqualTo(1.0);
        assertThat(Recovery.share(until, until + 3_600 * S)).isEqualTo(1.0);
        assertThat(Recovery.share(until, until - 1))
                .as("still paused: nothing starts")
                .isEqualTo(1.0);
    }

    @Test
    void aScopeNeverPausedRunsWholeWhateverTheTime() {
        assertThat(Recovery.share(Long.MIN_VALUE, 0)).isEqualTo(1.0);
        assertThat(Recovery.share(Long.MIN_VALUE, -5 * S)).isEqualTo(1.0);
        assertThat(Recovery.share(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(1.0);
        assertThat(Recovery.waitWithin(7 * S, Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(7 * S);
    }

    @Test
    void aWaitEndsWhereTheNextStepComesSooner() {
        long until = 100 * S;
        assertThat(Recovery.waitWithin(3 * S, until, until + 200 * MS)).isEqualTo(800 * MS);
        assertThat(Recovery.waitWithin(3 * S, until, until + 1_200 * MS)).isEqualTo(800 * MS);
        assertThat(Recovery.waitWithin(300 * MS, until, until + 1_200 * MS)).isEqualTo(300 * MS);
        assertThat(Recovery.waitWithin(3 * S, until, until + 2 * S))
                .as("the ramp is over")
                .isEqualTo(3 * S);
        assertThat(Recovery.waitWithin(3 * S, until, until - S))
                .as("still paused")
                .isEqualTo(3 * S);
    }
}
