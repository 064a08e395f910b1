package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QueueStatsTest {
    @Test
    void latencyToStringWritesDurationsForPeople() {
        QueueStats.Latency latency = new QueueStats.Latency(
                120, Duration.ofMillis(2), Duration.ofMillis(8), Duration.ofNanos(31_500_000), Duration.ofSeconds(2));

        assertThat(latency).hasToString("Latency{count=120, p50=2 ms, p90=8 ms, p99=31.5 ms, max=2 s}");
    }
}
