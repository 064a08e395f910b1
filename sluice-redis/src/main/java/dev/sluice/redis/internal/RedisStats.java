package dev.sluice.redis.internal;

import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
        return parse(Replies.list(queue.calls.call(false, "stats", "")), Result.Scope.QUEUE, null);
    }

    /** A group's statistics ({@code null}: the jobs without a group), this process's pending ones written first. */
    QueueStats stats(String group) {
        writeStats();
        return parse(
                Replies.list(queue.calls.call(false, "stats", group == null ? "=" : "=" + group)),
                Result.Scope.GROUP,
                group);
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

    private static QueueStats parse(List<Object> r, Result.Scope scope, String group) {
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
                latency(r.get(9)),
                r.size() > 11 ? rate(r.subList(11, r.size()), scope, group) : null);
    }

    /**
     * The rate the stats command described: its stored form, current value, cuts, last change and changes by reason (see
     * adaptive.describe in queue-adaptive.lua); null for none.
     */
    private static QueueStats.Rate rate(List<Object> described, Result.Scope scope, String group) {
        RatePolicy policy = RateText.decode(Replies.textOrNull(described.get(0)));
        if (policy == null) {
            return null;
        }
        Object current = described.get(1);
        double now = current == null ? policy.perSecond() : Double.parseDouble(Replies.text(current));
        long cuts = described.size() > 2 && described.get(2) != null ? Replies.number(described.get(2)) : 0;
        String last = described.size() > 3 ? Replies.textOrNull(described.get(3)) : null;
        String told = described.size() > 4 ? Replies.textOrNull(described.get(4)) : null;
        return new QueueStats.Rate(policy, policy.perSecond(), now, cuts, change(last, scope, group), changes(told));
    }

    /** The changes told by reason, as queue-adaptive.lua describes them: {@code reason|count|reason|count...}. */
    static Map<RateChange.Reason, Long> changes(String told) {
        Map<RateChange.Reason, Long> changes = new EnumMap<>(RateChange.Reason.class);
        if (told != null && !told.isEmpty()) {
            String[] v = told.split("\\|");
            for (int i = 0; i + 1 < v.length; i += 2) {
                changes.put(RateChange.Reason.valueOf(v[i]), Long.parseLong(v[i + 1]));
            }
        }
        return changes;
    }

    /**
     * A change as queue-adaptive.lua writes it, in the statistics and in rate-changed events: {@code
     * reason|signal|value|from|to|at(µs)}; null for none.
     */
    static RateChange change(String stored, Result.Scope scope, String group) {
        if (stored == null || stored.isEmpty()) {
            return null;
        }
        String[] v = stored.split("\\|", -1);
        return new RateChange(
                scope,
                scope == Result.Scope.QUEUE ? null : group,
                RateChange.Reason.valueOf(v[0]),
                v[1],
                Double.parseDouble(v[2]),
                Double.parseDouble(v[3]),
                Double.parseDouble(v[4]),
                JobSnapshots.instant(Long.parseLong(v[5])));
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
