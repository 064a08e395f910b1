package dev.sluice.micrometer;

import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobState;
import dev.sluice.time.SluiceClock;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * One gauge per job state, of a queue or of a group, reading the counts only when the registry reads a gauge:
 * never per event. A scrape reads the five gauges one after another, so one read of the counts serves each state
 * once, within {@link #MAX_AGE_NANOS}: the five values of a scrape come from one instant (one round trip on a
 * shared engine), and the next scrape, or a read of a state already served, reads afresh. A read that fails (the
 * engine's server unreachable, or the engine closed) shows as NaN.
 */
final class StateGauges {
    /** How long one read of the counts may serve the other states, on the engine's clock: one second. */
    static final long MAX_AGE_NANOS = 1_000_000_000L;

    private final Supplier<JobCounts> read;
    private final SluiceClock clock;
    private JobCounts counts;
    private long readAt;
    /** The states served from {@link #counts}, one bit per state. */
    private int served;

    private StateGauges(Supplier<JobCounts> read, SluiceClock clock) {
        this.read = read;
        this.clock = clock;
    }

    /**
     * Registers a gauge {@code name} per state, tagged with {@code tags} and the state, reading {@code read}; the
     * age of a read is measured on {@code clock}.
     */
    static void register(MeterSet meters, String name, Tags tags, Supplier<JobCounts> read, SluiceClock clock) {
        StateGauges gauges = new StateGauges(read, clock);
        for (JobState state : JobState.values()) {
            meters.gauge(
                    name,
                    tags.and(MeterNames.STATE, state.name().toLowerCase(Locale.ROOT)),
                    gauges,
                    g -> g.value(state));
        }
    }

    private synchronized double value(JobState state) {
        int bit = 1 << state.ordinal();
        long now = clock.nanos();
        if (counts == null || (served & bit) != 0 || now - readAt >= MAX_AGE_NANOS) {
            served = 0;
            readAt = now;
            try {
                counts = read.get();
            } catch (RuntimeException e) {
                counts = null;
                return Double.NaN;
            }
        }
        served |= bit;
        return counts.of(state);
    }
}
