package dev.sluice.redis.internal;

import dev.sluice.queue.JobCounts;
import dev.sluice.queue.QueueStats;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis queue's statistics: what this process's workers measured ({@link PendingStats}), written to Redis in one
 * call within a second and before statistics are read, and the statistics of the queue and its groups as Redis
 * holds them for every process.
 */
final class RedisStats {
    private static final Logger LOG = LoggerFactory.getLogger(RedisStats.class);

    private final RedisJobQueue<?> queue;

    RedisStats(RedisJobQueue<?> queue) {
        this.queue = queue;
    }

    /** The times and completions this process's workers measured, until they are written to Redis. */
    final PendingStats pending = new PendingStats();

    private final AtomicBoolean statsWriteScheduled = new AtomicBoolean();

    /** After a worker recorded statistics: writes them within a second. */
    void statsRecorded() {
        if (statsWriteScheduled.compareAndSet(false, true)) {
            queue.clock().schedule(STATS_WRITE_NANOS, () -> {
                statsWriteScheduled.set(false);
                writeStatsQuietly();
            });
        }
    }

    private static final long STATS_WRITE_NANOS = 1_000_000_000L;

    /** Writes the pending statistics to Redis; what cannot be written is kept for the next write. */
    void writeStats() {
        List<String> taken = pending.take();
        if (taken.isEmpty()) {
            return;
        }
        try {
            queue.calls.call(false, "statsAdd", taken.toArray(String[]::new));
        } catch (RuntimeException e) {
            pending.putBack(taken);
            throw e;
        }
    }

    /** {@link #writeStats}, logging a failure; the statistics are kept for the next write. */
    void writeStatsQuietly() {
        try {
            writeStats();
        } catch (RuntimeException e) {
            LOG.debug("writing the statistics of {} failed; they are kept for the next write", queue, e);
            statsRecorded();
        }
    }

    /** The queue's statistics, this process's pending ones written first. */
    QueueStats stats() {
        writeStats();
        return parse(Replies.list(queue.calls.call(false, "stats", "")));
    }

    /** A group's statistics ({@code null}: the jobs without a group), this process's pending ones written first. */
    QueueStats stats(String group) {
        writeStats();
        return parse(Replies.list(queue.calls.call(false, "stats", group == null ? "=" : "=" + group)));
    }

    /** The groups that hold jobs or statistics, by name. */
    List<String> groups() {
        TreeSet<String> names = new TreeSet<>();
        for (Object group : Replies.list(queue.calls.call(false, "groups"))) {
            String inKeys = Replies.text(group);
            if (inKeys.startsWith("g")) { // "u" is the ungrouped jobs
                names.add(inKeys.substring(1));
            }
        }
        return List.copyOf(names);
    }

    private static QueueStats parse(List<Object> r) {
        JobCounts counts = new JobCounts(
                Replies.number(r.get(0)),
                Replies.number(r.get(1)),
                Replies.number(r.get(2)),
                Replies.number(r.get(6)),
                Replies.number(r.get(7)));
        return new QueueStats(
                counts,
                Replies.number(r.get(10)),
                Replies.number(r.get(3)),
                Replies.number(r.get(4)),
                Replies.number(r.get(5)) / 60.0,
                latency(r.get(8)),
                latency(r.get(9)));
    }

    private static QueueStats.Latency latency(Object reply) {
        List<Object> l = Replies.list(reply);
        return new QueueStats.Latency(
                Replies.number(l.get(0)),
                Duration.ofNanos(Replies.number(l.get(1))),
                Duration.ofNanos(Replies.number(l.get(2))),
                Duration.ofNanos(Replies.number(l.get(3))),
                Duration.ofNanos(Replies.number(l.get(4))));
    }
}
