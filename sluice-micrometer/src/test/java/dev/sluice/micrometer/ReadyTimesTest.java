package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReadyTimesTest {
    private static final Instant T = Instant.parse("2026-12-02T00:00:00Z");

    @Test
    void aReadyTimeIsReadOnceAndUnknownJobsHaveNone() {
        Attempts.ReadyTimes times = new Attempts.ReadyTimes(10);
        times.put("a", T);
        times.put("b", null);

        assertThat(times.take("a")).isEqualTo(T);
        assertThat(times.take("a")).isNull();
        assertThat(times.take("b")).isNull();
        assertThat(times.size()).isZero();
    }

    @Test
    void beyondItsCapacityTheLongestKnownIsForgotten() {
        Attempts.ReadyTimes times = new Attempts.ReadyTimes(2);
        times.put("a", T);
        times.put("b", T.plusSeconds(1));
        times.put("c", T.plusSeconds(2));

        assertThat(times.size()).isEqualTo(2);
        assertThat(times.take("a")).isNull();
        assertThat(times.take("b")).isEqualTo(T.plusSeconds(1));
        assertThat(times.take("c")).isEqualTo(T.plusSeconds(2));
    }

    @Test
    void aJobSentBackAgainKeepsOnlyItsLatestReadyTime() {
        Attempts.ReadyTimes times = new Attempts.ReadyTimes(2);
        times.put("a", T);
        times.put("a", T.plusSeconds(5));

        assertThat(times.size()).isEqualTo(1);
        assertThat(times.take("a")).isEqualTo(T.plusSeconds(5));
    }
}
