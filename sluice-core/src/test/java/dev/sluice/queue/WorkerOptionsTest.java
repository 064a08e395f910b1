package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WorkerOptionsTest {
    @Test
    void concurrencyStartsAtOnce() {
        WorkerOptions options = WorkerOptions.concurrency(8);

        assertThat(options.concurrency()).isEqualTo(8);
        assertThat(options.autoStart()).isTrue();
    }

    @Test
    void manualRunsOneJobAndDoesNotStartByItself() {
        assertThat(WorkerOptions.manual()).isEqualTo(new WorkerOptions(1, false, WorkerOptions.DEFAULT_LEASE_TIME, 1));
    }

    @Test
    void theBuilderStartsFromTheDefaultsAndEachSetterChangesOnlyItsValue() {
        assertThat(WorkerOptions.defaults())
                .isEqualTo(WorkerOptions.builder().build())
                .isEqualTo(
                        new WorkerOptions(1, true, WorkerOptions.DEFAULT_LEASE_TIME, WorkerOptions.DEFAULT_MAX_STALLS));
        WorkerOptions options = WorkerOptions.builder()
                .concurrency(3)
                .leaseTime(Duration.ofSeconds(5))
                .maxStalls(0)
                .build();

        assertThat(options).isEqualTo(new WorkerOptions(3, true, Duration.ofSeconds(5), 0));
        assertThat(options.toBuilder().build()).isEqualTo(options);
        assertThat(options.toBuilder().leaseTime(Duration.ofMinutes(1)).build())
                .isEqualTo(new WorkerOptions(3, true, Duration.ofMinutes(1), 0));
        assertThat(options.toBuilder().maxStalls(7).autoStart(false).build())
                .isEqualTo(new WorkerOptions(3, false, Duration.ofSeconds(5), 7));
    }

    @Test
    void theLeaseTimeIsOneSecondToOneDayBothIncluded() {
        assertThat(WorkerOptions.builder()
                        .leaseTime(Duration.ofSeconds(1))
                        .build()
                        .leaseTime())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(WorkerOptions.builder().leaseTime(Duration.ofDays(1)).build().leaseTime())
                .isEqualTo(Duration.ofDays(1));
        assertThatThrownBy(() -> WorkerOptions.builder()
                        .leaseTime(Duration.ofSeconds(1).minusNanos(1))
                        .build())
                .hasMessage("worker lease time must be 1 second to 1 day, was 999.999999 ms");
        assertThatThrownBy(() -> WorkerOptions.builder()
                        .leaseTime(Duration.ofDays(1).plusNanos(1))
                        .build())
                .hasMessageStartingWith("worker lease time must be 1 second to 1 day, was 1 d");
    }

    @Test
    void autoStartChangesOnlyAutoStart() {
        assertThat(WorkerOptions.builder().concurrency(4).autoStart(false).build())
                .isEqualTo(new WorkerOptions(4, false, WorkerOptions.DEFAULT_LEASE_TIME, 1));
        assertThat(WorkerOptions.builder().autoStart(false).autoStart(true).build())
                .isEqualTo(WorkerOptions.concurrency(1));
    }

    @Test
    void concurrencyBoundsAreAccepted() {
        assertThat(WorkerOptions.concurrency(1).concurrency()).isEqualTo(1);
        assertThat(WorkerOptions.concurrency(WorkerOptions.MAX_CONCURRENCY).concurrency())
                .isEqualTo(100_000);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 100_001, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void concurrencyOutsideOneToOneHundredThousandIsRejectedNamingTheValueAndRange(int concurrency) {
        assertThatThrownBy(() -> WorkerOptions.concurrency(concurrency))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("worker concurrency must be between 1 and 100000, was " + concurrency);
        assertThatThrownBy(() -> new WorkerOptions(concurrency, false, WorkerOptions.DEFAULT_LEASE_TIME, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was " + concurrency);
    }
}
