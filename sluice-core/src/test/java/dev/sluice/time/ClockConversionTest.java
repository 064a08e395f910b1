package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClockConversionTest {
    @Test
    void epochNanosAndInstantsConvertBothWaysOnEitherSideOfTheEpoch() {
        Instant after = Instant.parse("2026-01-01T00:00:00.000000001Z");
        Instant before = Instant.parse("1969-12-31T23:59:59.999999999Z");

        assertThat(SluiceClock.toEpochNanos(after)).isEqualTo(1_767_225_600_000_000_001L);
        assertThat(SluiceClock.toInstant(1_767_225_600_000_000_001L)).isEqualTo(after);
        assertThat(SluiceClock.toEpochNanos(before)).isEqualTo(-1L);
        assertThat(SluiceClock.toInstant(-1L)).isEqualTo(before);
    }

    @Test
    void anInstantBeyondALongOfNanosIsRefused() {
        assertThatThrownBy(() -> SluiceClock.toEpochNanos(Instant.parse("2300-01-01T00:00:00Z")))
                .isInstanceOf(ArithmeticException.class);
    }
}
