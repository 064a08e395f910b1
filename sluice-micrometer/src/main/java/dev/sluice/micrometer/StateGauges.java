package dev.sluice.micrometer;

import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobState;
import dev.sluice.time.SluiceClock;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * One gauge per job state, of a queue or of a group, the five served by one read of the counts per scrape ({@link
 * ScrapeRead}).
 */
final class StateGauges {
    private StateGauges() {}

    /**
     * Registers a gauge {@code name} per state, tagged with {@code tags} and the state, reading {@code read}; the
     * age of a read is measured on {@code clock}.
     */
    static void register(MeterSet meters, String name, Tags tags, Supplier<JobCounts> read, SluiceClock clock) {
        ScrapeRead<JobCounts> counts = new ScrapeRead<>(read, clock);
        for (JobState state : JobState.values()) {
            meters.gauge(
                    name,
                    tags.and(MeterNames.STATE, state.name().toLowerCase(Locale.ROOT)),
                    counts,
                    c -> c.value(state.ordinal(), counted -> counted.of(state)));
        }
    }
}
