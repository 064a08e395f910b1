package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ThroughputTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long T = 1_767_225_600L * SECOND;

    @Test
    void nothingRecordedIsZero() {
        assertThat(new Throughput().perSecond(T)).isZero();
    }

    @Test
    void theRateIsTheEventsOfTheLastMinuteOverSixtySeconds() {
        Throughput t = new Throughput();
        t.record(T);
        t.record(T + SECOND / 2);
        t.record(T + SECOND - 1);

        assertThat(t.perSecond(T + SECOND - 1)).isEqualTo(3 / 60.0);
    }

    @Test
    void eventsOfEarlierSecondsStayInTheMinute() {
        Throughput t = new Throughput();
        t.record(T);
        t.record(T + SECOND);
        t.record(T + 2 * SECOND);

        assertThat(t.perSecond(T + 2 * SECOND)).isEqualTo(3 / 60.0);
        assertThat(t.perSecond(T + 59 * SECOND)).isEqualTo(3 / 60.0);
    }

    @Test
    void anEventLeavesTheWindowSixtySecondsAfterTheStartOfItsSecond() {
        Throughput t = new Throughput();
        t.record(T);
        t.record(T + 100);
        t.record(T + 59 * SECOND + SECOND / 2);

        assertThat(t.perSecond(T + 60 * SECOND - 1)).isEqualTo(3 / 60.0);
        assertThat(t.perSecond(T + 60 * SECOND)).isEqualTo(1 / 60.0);
        assertThat(t.perSecond(T + 119 * SECOND - 1)).isEqualTo(1 / 60.0);
        assertThat(t.perSecond(T + 119 * SECOND)).isZero();
    }

    @Test
    void aSilenceOfAMinuteOrMoreClearsEverySlot() {
        Throughput t = new Throughput();
        for (int s = 0; s < 60; s++) {
            t.record(T + s * SECOND);
        }
        assertThat(t.perSecond(T + 59 * SECOND)).isEqualTo(1.0);

        t.record(T + 59 * SECOND + 60 * SECOND);

        assertThat(t.perSecond(T + 119 * SECOND)).isEqualTo(1 / 60.0);
        assertThat(t.perSecond(T + 3_600 * SECOND)).isZero();
    }

    @Test
    void aReadingBeforeTheLatestSecondChangesNothing() {
        Throughput t = new Throughput();
        t.record(T + 5 * SECOND);

        assertThat(t.perSecond(T + 4 * SECOND)).isEqualTo(1 / 60.0);
        t.record(T + 4 * SECOND);
        assertThat(t.perSecond(T + 5 * SECOND)).isEqualTo(2 / 60.0);
    }
}
