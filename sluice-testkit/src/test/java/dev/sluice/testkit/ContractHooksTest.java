package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Where a suite finds its engine: the contract it is nested in, its own override, or neither (a clear error). */
class ContractHooksTest {
    @Test
    void aSuiteOnItsOwnWithoutAnEngineSaysWhatToDo() {
        QueueJobsContract alone = new QueueJobsContract() {};

        assertThatThrownBy(() -> alone.newEngine(new ManualClock()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("override newEngine(SluiceClock), or nest it in a QueueContract");
        assertThat(alone.differences()).isEqualTo(EngineDifferences.none());
    }

    @Test
    void aNestedSuiteTakesTheEnclosingContractsHooks() {
        EngineDifferences shared = EngineDifferences.sharedServer(Duration.ofNanos(1_000));
        QueueContract queues = new QueueContract() {
            @Override
            protected Sluice newEngine(dev.sluice.time.SluiceClock clock) {
                return Sluice.inMemory(clock);
            }

            @Override
            protected EngineDifferences differences() {
                return shared;
            }
        };
        RateLimiterContract limiters = new RateLimiterContract() {
            @Override
            protected Sluice newEngine(dev.sluice.time.SluiceClock clock) {
                return Sluice.inMemory(clock);
            }
        };
        QueueJobsContract jobs = new QueueJobsContract() {};
        FixedWindowContract windows = new FixedWindowContract() {};
        jobs.enclosing = queues;
        windows.enclosing = limiters;

        try (Sluice engine = jobs.newEngine(new ManualClock())) {
            assertThat(engine).isNotNull();
        }
        assertThat(jobs.differences()).isSameAs(shared);
        try (Sluice engine = windows.newEngine(new ManualClock())) {
            assertThat(engine).isNotNull();
        }
    }
}
