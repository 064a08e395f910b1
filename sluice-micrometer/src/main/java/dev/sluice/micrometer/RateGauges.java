package dev.sluice.micrometer;

import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RateChange;
import dev.sluice.time.SluiceClock;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The rate of a queue or of a group, as gauges: the rate in force (an {@link dev.sluice.limit.AdaptiveRate}'s
 * current one), the configured one, an adaptive rate's cuts and its changes by reason, all served by one read of the
 * statistics per scrape ({@link ScrapeRead}); no rate shows as NaN.
 */
final class RateGauges {
    private RateGauges() {}

    /** The meters' names: of a queue's rate or of a group's. */
    record Names(String inForce, String configured, String cuts, String changes) {
        static final Names QUEUE = new Names(
                MeterNames.QUEUE_RATE,
                MeterNames.QUEUE_RATE_CONFIGURED,
                MeterNames.QUEUE_RATE_CUTS,
                MeterNames.QUEUE_RATE_CHANGES);
        static final Names GROUP = new Names(
                MeterNames.GROUP_RATE,
                MeterNames.GROUP_RATE_CONFIGURED,
                MeterNames.GROUP_RATE_CUTS,
                MeterNames.GROUP_RATE_CHANGES);
    }

    /** Registers the gauges of {@code names}, tagged with {@code tags}, reading {@code read}. */
    static void register(MeterSet meters, Names names, Tags tags, Supplier<QueueStats.Rate> read, SluiceClock clock) {
        ScrapeRead<QueueStats.Rate> rate = new ScrapeRead<>(read, clock);
        meters.gauge(names.inForce(), tags, rate, r -> r.value(0, QueueStats.Rate::perSecond));
        meters.gauge(names.configured(), tags, rate, r -> r.value(1, QueueStats.Rate::configuredPerSecond));
        meters.gauge(names.cuts(), tags, rate, r -> r.value(2, QueueStats.Rate::cuts));
        int gauge = 3;
        for (RateChange.Reason reason : RateChange.Reason.values()) {
            int number = gauge++;
            Tags tagged = tags.and(MeterNames.REASON, reason.name().toLowerCase(Locale.ROOT));
            meters.gauge(names.changes(), tagged, rate, r -> r.value(number, stats -> stats.changes(reason)));
        }
    }
}
