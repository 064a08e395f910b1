package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void maximumIsAQuarterOfTheLongestNanosecondCount() {
        assertThat(Durations.MAX.toNanos()).isEqualTo(Long.MAX_VALUE / 4);
        assertThat(Durations.MAX.toDays()).isEqualTo(26_687); // about 73 years
    }

    @Test
    void notNegativeAcceptsZeroAndTheMaximum() {
        assertThat(Durations.notNegative("x", Duration.ZERO)).isZero();
        assertThat(Durations.notNegative("x", Durations.MAX)).isEqualTo(Durations.MAX);
    }

    @Test
    void notNegativeRejectsNegativeNullAndTooLongNamingWhatAndRange() {
        String range = "wait must be between 0 and PT640511H56M49.213693951S, was ";
        assertThatThrownBy(() -> Durations.notNegative("wait", Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "PT-0.000000001S");
        assertThatThrownBy(() -> Durations.notNegative("wait", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "null");
        assertThatThrownBy(() -> Durations.notNegative("wait", Durations.MAX.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "PT640511H56M49.213693952S");
    }

    @Test
    void positiveAcceptsOneNanosecondAndTheMaximum() {
        assertThat(Durations.positive("x", Duration.ofNanos(1))).isEqualTo(Duration.ofNanos(1));
        assertThat(Durations.positive("x", Durations.MAX)).isEqualTo(Durations.MAX);
    }

    @Test
    void positiveRejectsZeroNegativeNullAndTooLongNamingWhatAndRange() {
        String range = "ttl must be positive and at most PT640511H56M49.213693951S, was ";
        assertThatThrownBy(() -> Durations.positive("ttl", Duration.ZERO)).hasMessage(range + "PT0S");
        assertThatThrownBy(() -> Durations.positive("ttl", Duration.ofDays(-1))).hasMessage(range + "PT-24H");
        assertThatThrownBy(() -> Durations.positive("ttl", null)).hasMessage(range + "null");
        assertThatThrownBy(() -> Durations.positive("ttl", Duration.ofDays(365L * 100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "PT876000H");
    }

    @Test
    void inRangeIsInclusiveAtBothEnds() {
        assertThat(Durations.inRange("n", 3, 3, 5)).isEqualTo(3);
        assertThat(Durations.inRange("n", 5, 3, 5)).isEqualTo(5);
        assertThatThrownBy(() -> Durations.inRange("n", 2, 3, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n must be between 3 and 5, was 2");
        assertThatThrownBy(() -> Durations.inRange("n", 6, 3, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n must be between 3 and 5, was 6");
    }
}
