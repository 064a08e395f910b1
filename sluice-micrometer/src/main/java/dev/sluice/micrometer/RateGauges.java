package dev.sluice.micrometer;

import dev.sluice.queue.QueueStats;
import dev.sluice.time.SluiceClock;
import io.micrometer.core.instrument.Tags;
import java.util.function.Supplier;

/**
 * The rate of a queue or of a group, as gauges read when the registry reads them: the rate in force (an {@link
 * dev.sluice.limit.AdaptiveRate}'s current one), the configured one, and an adaptive rate's cuts. As {@link
 * StateGauges}, one read of the statistics serves each of the three once within a second; no rate, or a read that
 * fails, shows as NaN.
 */
final class RateGauges {
    private enum Value {
        IN_FORCE,
        CONFIGURED,
        CUTS
    }

    private final Supplier<QueueStats.Rate> read;
    private final SluiceClock clock;
    private QueueStats.Rate rate;
    private boolean fresh;
    private long readAt;
    private int served;

    private RateGauges(Supplier<QueueStats.Rate> read, SluiceClock clock) {
        this.read = read;
        this.clock = clock;
    }

    /** The meters' names: of a queue's rate or of a group's. */
    record Names(String inForce, String configured, String cuts) {
        static final Names QUEUE =
                new Names(MeterNames.QUEUE_RATE, MeterNames.QUEUE_RATE_CONFIGURED, MeterNames.QUEUE_RATE_CUTS);
        static final Names GROUP =
                new Names(MeterNames.GROUP_RATE, MeterNames.GROUP_RATE_CONFIGURED, MeterNames.GROUP_RATE_CUTS);
    }

    /** Registers the three gauges of {@code names}, tagged with {@code tags}, reading {@code read}. */
    static void register(MeterSet meters, Names names, Tags tags, Supplier<QueueStats.Rate> read, SluiceClock clock) {
        RateGauges gauges = new RateGauges(read, clock);
        meters.gauge(names.inForce(), tags, gauges, g -> g.value(Value.IN_FORCE));
        meters.gauge(names.configured(), tags, gauges, g -> g.value(Value.CONFIGURED));
        meters.gauge(names.cuts(), tags, gauges, g -> g.value(Value.CUTS));
    }

    private synchronized double value(Value value) {
        int bit = 1 << value.ordinal();
        long now = clock.nanos();
        if (!fresh || (served & bit) != 0 || now - readAt >= StateGauges.MAX_AGE_NANOS) {
            served = 0;
            readAt = now;
            try {
                rate = read.get();
                fresh = true;
            } catch (RuntimeException e) {
                fresh = false;
                return Double.NaN;
            }
        }
        served |= bit;
        if (rate == null) {
            return Double.NaN;
        }
        return switch (value) {
            case IN_FORCE -> rate.perSecond();
            case CONFIGURED -> rate.configuredPerSecond();
            case CUTS -> rate.cuts();
        };
    }
}
