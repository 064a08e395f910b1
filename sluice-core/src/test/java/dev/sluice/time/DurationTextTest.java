package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class DurationTextTest {
    @Test
    void belowAMinuteUsesTheLargestUnitThatIsAtLeastOne() {
        assertThat(DurationText.format(Duration.ZERO)).isEqualTo("0 ns");
        assertThat(DurationText.formatNanos(1)).isEqualTo("1 ns");
        assertThat(DurationText.formatNanos(999)).isEqualTo("999 ns");
        assertThat(DurationText.formatNanos(1_000)).isEqualTo("1 µs");
        assertThat(DurationText.formatNanos(2_500)).isEqualTo("2.5 µs");
        assertThat(DurationText.formatNanos(999_999)).isEqualTo("999.999 µs");
        assertThat(DurationText.formatNanos(1_000_000)).isEqualTo("1 ms");
        assertThat(DurationText.format(Duration.ofMillis(100))).isEqualTo("100 ms");
        assertThat(DurationText.format(Duration.ofNanos(2_500_000))).isEqualTo("2.5 ms");
        assertThat(DurationText.formatNanos(1_234_567)).isEqualTo("1.234567 ms");
        assertThat(DurationText.format(Duration.ofSeconds(1))).isEqualTo("1 s");
        assertThat(DurationText.format(Duration.ofMillis(2500))).isEqualTo("2.5 s");
        assertThat(DurationText.formatNanos(1_000_000_001)).isEqualTo("1.000000001 s");
        assertThat(DurationText.format(Duration.ofMillis(59_999))).isEqualTo("59.999 s");
    }

    @Test
    void fromAMinuteOnWritesEachPartThatIsNotZero() {
        assertThat(DurationText.format(Duration.ofMinutes(1))).isEqualTo("1 min");
        assertThat(DurationText.format(Duration.ofMinutes(90))).isEqualTo("1 h 30 min");
        assertThat(DurationText.format(Duration.ofSeconds(3605))).isEqualTo("1 h 5 s");
        assertThat(DurationText.format(Duration.ofMillis(60_500))).isEqualTo("1 min 0.5 s");
        assertThat(DurationText.format(Duration.ofDays(2).plusHours(3))).isEqualTo("2 d 3 h");
        assertThat(DurationText.format(Duration.ofDays(1))).isEqualTo("1 d");
        assertThat(DurationText.formatNanos(1L << 52)).isEqualTo("52 d 2 h 59 min 59.627370496 s");
        assertThat(DurationText.formatNanos(Long.MAX_VALUE)).isEqualTo("106751 d 23 h 47 min 16.854775807 s");
    }

    @Test
    void negativeAmountsCarryAMinusSign() {
        assertThat(DurationText.format(Duration.ofMillis(-2500))).isEqualTo("-2.5 s");
        assertThat(DurationText.formatNanos(-1)).isEqualTo("-1 ns");
        assertThat(DurationText.format(Duration.ofMinutes(-90))).isEqualTo("-1 h 30 min");
        assertThat(DurationText.formatNanos(Long.MIN_VALUE)).isEqualTo("-106751 d 23 h 47 min 16.854775808 s");
        assertThat(DurationText.format(ChronoUnit.FOREVER.getDuration().negated()))
                .startsWith("-106751991167300 d");
    }

    @Test
    void nullIsWrittenAsNull() {
        assertThat(DurationText.format(null)).isEqualTo("null");
    }
}
