package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionTest {
    @Test
    void keepAllHasNoCountOrAgeBound() {
        assertThat(Retention.keepAll().maxCount()).isEqualTo(Integer.MAX_VALUE);
        assertThat(Retention.keepAll().maxAge()).isNull();
    }

    @Test
    void keepNoneKeepsZeroJobs() {
        assertThat(Retention.keepNone()).isEqualTo(new Retention(0, null));
    }

    @Test
    void keepLastBoundsOnlyTheCount() {
        assertThat(Retention.keepLast(25)).isEqualTo(new Retention(25, null));
        assertThat(Retention.keepLast(0)).isEqualTo(Retention.keepNone());
        assertThat(Retention.keepLast(Integer.MAX_VALUE)).isEqualTo(Retention.keepAll());
    }

    @Test
    void keepForBoundsOnlyTheAge() {
        Retention retention = Retention.keepFor(Duration.ofHours(6));

        assertThat(retention.maxCount()).isEqualTo(Integer.MAX_VALUE);
        assertThat(retention.maxAge()).isEqualTo(Duration.ofHours(6));
    }

    @Test
    void andForAddsAnAgeBoundAndKeepsTheCount() {
        Retention retention = Retention.keepLast(100).andFor(Duration.ofDays(1));

        assertThat(retention).isEqualTo(new Retention(100, Duration.ofDays(1)));
        assertThat(retention.andFor(Duration.ofMinutes(5))).isEqualTo(new Retention(100, Duration.ofMinutes(5)));
    }

    @Test
    void negativeCountIsRejectedNamingTheValueAndRange() {
        assertThatThrownBy(() -> Retention.keepLast(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retention maxCount must be between 0 and 2147483647, was -1");
        assertThatThrownBy(() -> new Retention(Integer.MIN_VALUE, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retention maxCount must be between 0 and 2147483647, was -2147483648");
    }

    @Test
    void zeroOrNegativeAgeIsRejectedNamingTheValueAndRange() {
        assertThatThrownBy(() -> Retention.keepFor(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retention maxAge must be positive and at most about 73 years, was 0 ns");
        assertThatThrownBy(() -> Retention.keepLast(5).andFor(Duration.ofSeconds(-30)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retention maxAge must be positive and at most about 73 years, was -30 s");
    }

    @Test
    void ageBeyondTheMaximumIsRejectedButTheMaximumItselfIsAccepted() {
        assertThat(Retention.keepFor(Durations.MAX).maxAge()).isEqualTo(Durations.MAX);
        assertThatThrownBy(() -> Retention.keepFor(Durations.MAX.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retention maxAge must be positive and at most about 73 years");
    }

    @Test
    void nullAgeMeansNoAgeBound() {
        assertThat(new Retention(10, null).maxAge()).isNull();
        assertThat(Retention.keepLast(10).andFor(Duration.ofDays(1)).andFor(null))
                .isEqualTo(Retention.keepLast(10));
    }

    @Test
    void toStringSaysHowTheRetentionWasMade() {
        assertThat(Retention.keepAll()).hasToString("Retention.keepAll()");
        assertThat(Retention.keepNone()).hasToString("Retention.keepNone()");
        assertThat(Retention.keepLast(1000)).hasToString("Retention.keepLast(1000)");
        assertThat(Retention.keepFor(Duration.ofDays(7))).hasToString("Retention.keepFor(7 d)");
        assertThat(Retention.keepLast(50).andFor(Duration.ofMinutes(90)))
                .hasToString("Retention.keepLast(50).andFor(1 h 30 min)");
    }
}
