package dev.sluice.demo;

import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The partner API losing capacity for the middle third of the traffic and getting it back, and what the queue's
 * adaptive rate did about it: the rate in force each second, its cuts and climbs (heard as {@link RateChange}s), and
 * the 429s that cost. Thread-safe.
 */
final class CapacityDrop {
    private final PartnerApi api;
    private final JobQueue<String> queue;
    private final long high;
    private final long low;
    private final long dropAt;
    private final long backAt;
    private boolean dropped;
    private boolean back;
    private final LongAdder cuts = new LongAdder();
    private final LongAdder climbs = new LongAdder();
    private final AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);

    /** A drop of {@code api}'s global capacity from {@code high} to {@code low} a second, for {@code length} / 3. */
    CapacityDrop(PartnerApi api, JobQueue<String> queue, long high, long low, Duration length) {
        this.api = api;
        this.queue = queue;
        this.high = high;
        this.low = low;
        this.dropAt = length.toNanos() / 3;
        this.backAt = 2 * length.toNanos() / 3;
        queue.addListener(new QueueListener<>() {
            @Override
            public void onRateChanged(RateChange change) {
                if (change.scope() != Result.Scope.QUEUE) {
                    return;
                }
                (change.reason() == RateChange.Reason.CLIMB ? climbs : cuts).increment();
                lowest.accumulateAndGet(Math.round(change.to()), Math::min);
            }
        });
    }

    /** At {@code elapsed} into the traffic: changes the partner's capacity when due; a note for the row, or "". */
    String at(long elapsed) {
        if (!dropped && elapsed >= dropAt) {
            dropped = true;
            api.globalPerSecond(low);
            return "partner capacity " + high + " -> " + low + "/s";
        }
        if (dropped && !back && elapsed >= backAt) {
            back = true;
            api.globalPerSecond(high);
            return "partner capacity back to " + high + "/s";
        }
        return "";
    }

    /** The queue's rate in force now, for the progress row. */
    String rateCell() {
        QueueStats.Rate rate = queue.stats().rate();
        return rate == null ? "-" : String.format("%.0f/s", rate.perSecond());
    }

    /** What the adaptive rate did: its cuts and climbs, its lowest rate, and the share of calls that got a 429. */
    void printVerdict(PrintStream out) {
        long calls = api.ok.sum() + api.tooManyRequests.sum() + api.unavailable.sum();
        long refused = api.global429.sum();
        long low = lowest.get();
        out.printf(
                "  %-8s the partner's capacity fell from %d to %d/s and came back: the queue's rate followed (%d cuts,"
                        + " down to %s, %d climbs),%n           and the partner's global limit refused %d of %d calls"
                        + " (%.1f%%)%n",
                "adaptive",
                high,
                this.low,
                cuts.sum(),
                low == Long.MAX_VALUE ? "-" : low + "/s",
                climbs.sum(),
                refused,
                calls,
                calls == 0 ? 0 : 100.0 * refused / calls);
    }
}
