package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
        String range = "wait must be between 0 and about 73 years, was ";
        assertThatThrownBy(() -> Durations.notNegative("wait", Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "-1 ns");
        assertThatThrownBy(() -> Durations.notNegative("wait", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "null");
        assertThatThrownBy(() -> Durations.notNegative("wait", Durations.MAX.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "26687 d 23 h 56 min 49.213693952 s");
    }

    @Test
    void positiveAcceptsOneNanosecondAndTheMaximum() {
        assertThat(Durations.positive("x", Duration.ofNanos(1))).isEqualTo(Duration.ofNanos(1));
        assertThat(Durations.positive("x", Durations.MAX)).isEqualTo(Durations.MAX);
    }

    @Test
    void positiveRejectsZeroNegativeNullAndTooLongNamingWhatAndRange() {
        String range = "ttl must be positive and at most about 73 years, was ";
        assertThatThrownBy(() -> Durations.positive("ttl", Duration.ZERO)).hasMessage(range + "0 ns");
        assertThatThrownBy(() -> Durations.positive("ttl", Duration.ofDays(-1))).hasMessage(range + "-1 d");
        assertThatThrownBy(() -> Durations.positive("ttl", null)).hasMessage(range + "null");
        assertThatThrownBy(() -> Durations.positive("ttl", Duration.ofDays(365L * 100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(range + "36500 d");
    }

    @ParameterizedTest(name = "{0} is written {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "PT0S           | 0 ns",
                "PT0.000000001S | 1 ns",
                "PT0.000000999S | 999 ns",
                "PT0.000001S    | 1 µs",
                "PT0.0000025S   | 2.5 µs",
                "PT0.000999999S | 999.999 µs",
                "PT0.001S       | 1 ms",
                "PT0.0025S      | 2.5 ms",
                "PT0.100000001S | 100.000001 ms",
                "PT1S           | 1 s",
                "PT2.5S         | 2.5 s",
                "PT59.999999999S | 59.999999999 s",
                "PT1M           | 1 min",
                "PT1M0.5S       | 1 min 0.5 s",
                "PT1H30M        | 1 h 30 min",
                "PT24H          | 1 d",
                "PT49H0.001S    | 2 d 1 h 0.001 s",
                "PT-2.5S        | -2.5 s",
                "PT-1H-1S       | -1 h 1 s"
            })
    void textWritesDurationsForPeopleExactly(String iso, String text) {
        assertThat(Durations.text(Duration.parse(iso))).isEqualTo(text);
    }

    @Test
    void textOfNullAndOfTheExtremesNeverFails() {
        assertThat(Durations.text(null)).isEqualTo("null");
        assertThat(Durations.text(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)))
                .isEqualTo("106751991167300 d 15 h 30 min 7.999999999 s");
        assertThat(Durations.text(Duration.ofSeconds(Long.MIN_VALUE)))
                .isEqualTo("-106751991167300 d 15 h 30 min 7.999999999 s");
    }
}
