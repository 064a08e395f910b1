package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ArgumentsTest {
    @Test
    void inRangeIsInclusiveAtBothEnds() {
        assertThat(Arguments.inRange("n", 3, 3, 5)).isEqualTo(3);
        assertThat(Arguments.inRange("n", 5, 3, 5)).isEqualTo(5);
        assertThatThrownBy(() -> Arguments.inRange("n", 2, 3, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n must be between 3 and 5, was 2");
        assertThatThrownBy(() -> Arguments.inRange("n", 6, 3, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("n must be between 3 and 5, was 6");
    }

    @Test
    void inRangeOfLongsNamesTheLongBounds() {
        assertThat(Arguments.inRange("n", Long.MAX_VALUE, 1, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> Arguments.inRange("n", 0L, 1, Long.MAX_VALUE))
                .hasMessage("n must be between 1 and " + Long.MAX_VALUE + ", was 0");
    }

    @Test
    void positiveIsBoundedByTheMaximumGivenAndNamesItAsGiven() {
        Duration max = Duration.ofSeconds(2);
        assertThat(Arguments.positive("t", max, max, "2 s")).isEqualTo(max);
        assertThat(Arguments.positive("t", Duration.ofNanos(1), max, "2 s")).isEqualTo(Duration.ofNanos(1));
        assertThatThrownBy(() -> Arguments.positive("t", max.plusNanos(1), max, "2 s (the bound)"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("t must be positive and at most 2 s (the bound), was 2.000000001 s");
        assertThatThrownBy(() -> Arguments.positive("t", Duration.ZERO, max, "2 s"))
                .hasMessage("t must be positive and at most 2 s, was 0 ns");
        assertThatThrownBy(() -> Arguments.positive("t", null, max, "2 s"))
                .hasMessage("t must be positive and at most 2 s, was null");
    }

    @Test
    void notNegativeAcceptsZeroAndTheMaximumGiven() {
        Duration max = Duration.ofSeconds(2);
        assertThat(Arguments.notNegative("t", Duration.ZERO, max, "2 s")).isZero();
        assertThat(Arguments.notNegative("t", max, max, "2 s")).isEqualTo(max);
        assertThatThrownBy(() -> Arguments.notNegative("t", max.plusNanos(1), max, "2 s"))
                .hasMessage("t must be between 0 and 2 s, was 2.000000001 s");
        assertThatThrownBy(() -> Arguments.notNegative("t", Duration.ofNanos(-1), max, "2 s"))
                .hasMessage("t must be between 0 and 2 s, was -1 ns");
    }
}
