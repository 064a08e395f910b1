package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void withAutoStartChangesOnlyAutoStart() {
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
