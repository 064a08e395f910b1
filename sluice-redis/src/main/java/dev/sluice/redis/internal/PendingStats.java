package dev.sluice.redis.internal;

import dev.sluice.internal.queue.Histogram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statistics this process's workers measured and have not yet written to Redis: wait and processing times
 * (counts per bucket and the largest) and completions per second, per scope as the queue script names them
 * ({@code q} for the queue, {@code u} for the jobs without a group, {@code g<name>} for a group). The queue
 * writes them in one call, every second while there are some and before it reads statistics, so that a job's
 * lifecycle does not pay a dozen statistics commands in Redis. Thread-safe.
 */
final class PendingStats {
    /** A bucket count, a largest time or a second's completions of one scope. */
    private record Field(String scope, char kind, long number) {}

    private Map<Field, Long> pending = new HashMap<>();

    /** Records a wait ({@code kind} 'w') or processing ('p') time of a job of group scope {@code scope}. */
    synchronized void time(String scope, char kind, long nanos) {
        long value = Math.max(0, nanos);
        int bucket = Histogram.bucket(value);
        char maxKind = kind == 'w' ? 'W' : 'P';
        for (String s : new String[] {"q", scope}) {
            pending.merge(new Field(s, kind, bucket), 1L, Long::sum);
            pending.merge(new Field(s, maxKind, 0), value, Math::max);
        }
    }

    /** Records a completion of a job of group scope {@code scope} in epoch second {@code second}. */
    synchronized void completed(String scope, long second) {
        for (String s : new String[] {"q", scope}) {
            pending.merge(new Field(s, 's', second), 1L, Long::sum);
        }
    }

    /**
     * Takes what is pending as the queue script's {@code statsAdd} arguments: per entry the scope, the kind
     * ({@code w}/{@code p} a bucket count, {@code W}/{@code P} a largest time, {@code s} a second's completions),
     * the bucket or second, and the amount; empty if nothing is pending.
     */
    synchronized List<String> take() {
        if (pending.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>(4 * pending.size());
        for (Map.Entry<Field, Long> e : pending.entrySet()) {
            Field f = e.getKey();
            args.add(f.scope());
            args.add(String.valueOf(f.kind()));
            args.add(Long.toString(f.number()));
            args.add(Long.toString(e.getValue()));
        }
        pending = new HashMap<>();
        return args;
    }

    /** Puts back what {@link #take} took, after a write that failed. */
    synchronized void putBack(List<String> taken) {
        for (int i = 0; i < taken.size(); i += 4) {
            char kind = taken.get(i + 1).charAt(0);
            Field f = new Field(taken.get(i), kind, Long.parseLong(taken.get(i + 2)));
            long amount = Long.parseLong(taken.get(i + 3));
            pending.merge(f, amount, kind == 'W' || kind == 'P' ? Math::max : Long::sum);
        }
    }
}
