package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobCounts;
import dev.sluice.time.ManualClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The job-count gauges read the counts once per scrape of the five states, and never between scrapes. */
class StateGaugesTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AtomicInteger reads = new AtomicInteger();
    private final ManualClock clock = new ManualClock();

    /** Gauges whose n-th read of the counts answers n, 2n, 3n, 4n and 5n. */
    private void registerCounting() {
        StateGauges.register(
                new MeterSet(registry, MetricsOptions.defaults()),
                MeterNames.QUEUE_JOBS,
                Tags.empty(),
                () -> {
                    int n = reads.incrementAndGet();
                    return new JobCounts(n, 2 * n, 3 * n, 4 * n, 5 * n);
                },
                clock);
    }

    private double read(String state) {
        return registry.get(MeterNames.QUEUE_JOBS).tag("state", state).gauge().value();
    }

    @Test
    void aScrapeOfEveryStateReadsTheCountsOnceAndTheNextScrapeReadsAfresh() {
        registerCounting();
        assertThat(reads).as("registering reads nothing").hasValue(0);

        assertThat(read("waiting")).isEqualTo(1);
        assertThat(read("delayed")).isEqualTo(2);
        assertThat(read("active")).isEqualTo(3);
        assertThat(read("completed")).isEqualTo(4);
        assertThat(read("failed")).isEqualTo(5);
        assertThat(reads).hasValue(1);

        assertThat(read("failed"))
                .as("a second read of a state is a new scrape")
                .isEqualTo(10);
        assertThat(read("waiting")).isEqualTo(2);
        assertThat(reads).hasValue(2);
    }

    @Test
    void aReadServesTheOtherStatesForOneSecondAtMost() {
        registerCounting();

        assertThat(read("waiting")).isEqualTo(1);
        clock.advanceNanos(ScrapeRead.MAX_AGE_NANOS - 1);
        assertThat(read("delayed")).as("the same read, 1 ns within its second").isEqualTo(2);
        clock.advanceNanos(1);
        assertThat(read("active")).as("a second old: read afresh").isEqualTo(6);
        assertThat(reads).hasValue(2);
    }

    @Test
    void aReadThatFailsShowsAsNaNAndTheNextOneTriesAgain() {
        StateGauges.register(
                new MeterSet(registry, MetricsOptions.defaults()),
                MeterNames.QUEUE_JOBS,
                Tags.empty(),
                () -> {
                    if (reads.incrementAndGet() == 1) {
                        throw new IllegalStateException("engine closed");
                    }
                    return new JobCounts(7, 0, 0, 0, 0);
                },
                clock);

        assertThat(read("waiting")).isNaN();
        assertThat(read("waiting")).isEqualTo(7);
    }
}
