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
 * lifecycle does not pay a dozen statistics commands in Redis. Recording a job's times costs a few array
 * increments, not a map entry per figure. Thread-safe.
 */
final class PendingStats {
    private static final String QUEUE = "q";

    /** What one scope measured since the last {@link #take}. */
    private static final class Scope {
        final Times waits = new Times();
        final Times processing = new Times();
        /** The second whose completions {@link #inSecond} counts; earlier seconds' counts are in {@link #seconds}. */
        long second = Long.MIN_VALUE;

        long inSecond;
        final Map<Long, Long> seconds = new HashMap<>(4);

        void completed(long at, long amount) {
            if (at != second) {
                if (inSecond > 0) {
                    seconds.merge(second, inSecond, Long::sum);
                }
                Long before = seconds.remove(at);
                second = at;
                inSecond = before == null ? 0 : before;
            }
            inSecond += amount;
        }
    }

    /** Counts per {@link Histogram#bucket} (rows of 32, made when first used) and the largest time; -1: none. */
    private static final class Times {
        final long[][] rows = new long[64][];
        long max = -1;

        void add(int bucket, long amount) {
            long[] row = rows[bucket >>> 5];
            if (row == null) {
                row = rows[bucket >>> 5] = new long[32];
            }
            row[bucket & 31] += amount;
        }
    }

    private Map<String, Scope> scopes = new HashMap<>();

    private Scope scope(String name) {
        Scope scope = scopes.get(name);
        if (scope == null) {
            scope = new Scope();
            scopes.put(name, scope);
        }
        return scope;
    }

    /** Records a wait ({@code kind} 'w') or processing ('p') time of a job of group scope {@code scope}. */
    synchronized void time(String scope, char kind, long nanos) {
        long value = Math.max(0, nanos);
        int bucket = Histogram.bucket(value);
        for (Scope s : new Scope[] {scope(QUEUE), scope(scope)}) {
            Times times = kind == 'w' ? s.waits : s.processing;
            times.add(bucket, 1);
            times.max = Math.max(times.max, value);
        }
    }

    /** Records a completion of a job of group scope {@code scope} in epoch second {@code second}. */
    synchronized void completed(String scope, long second) {
        scope(QUEUE).completed(second, 1);
        scope(scope).completed(second, 1);
    }

    /**
     * Takes what is pending as the queue script's {@code statsAdd} arguments: per entry the scope, the kind
     * ({@code w}/{@code p} a bucket count, {@code W}/{@code P} a largest time, {@code s} a second's completions),
     * the bucket or second, and the amount; empty if nothing is pending.
     */
    synchronized List<String> take() {
        if (scopes.isEmpty()) {
            return List.of();
        }
        List<String> args = new ArrayList<>();
        for (Map.Entry<String, Scope> e : scopes.entrySet()) {
            String name = e.getKey();
            Scope s = e.getValue();
            times(args, name, 'w', s.waits);
            times(args, name, 'p', s.processing);
            s.completed(Long.MIN_VALUE, 0);
            for (Map.Entry<Long, Long> second : s.seconds.entrySet()) {
                add(args, name, 's', second.getKey(), second.getValue());
            }
        }
        scopes = new HashMap<>();
        return args;
    }

    private static void times(List<String> args, String scope, char kind, Times times) {
        for (int octave = 0; octave < times.rows.length; octave++) {
            long[] row = times.rows[octave];
            for (int sub = 0; row != null && sub < row.length; sub++) {
                if (row[sub] > 0) {
                    add(args, scope, kind, octave * 32L + sub, row[sub]);
                }
            }
        }
        if (times.max >= 0) {
            add(args, scope, Character.toUpperCase(kind), 0, times.max);
        }
    }

    private static void add(List<String> args, String scope, char kind, long number, long amount) {
        args.add(scope);
        args.add(String.valueOf(kind));
        args.add(Long.toString(number));
        args.add(Long.toString(amount));
    }

    /** Puts back what {@link #take} took, after a write that failed. */
    synchronized void putBack(List<String> taken) {
        for (int i = 0; i < taken.size(); i += 4) {
            Scope s = scope(taken.get(i));
            char kind = taken.get(i + 1).charAt(0);
            long number = Long.parseLong(taken.get(i + 2));
            long amount = Long.parseLong(taken.get(i + 3));
            switch (kind) {
                case 'w' -> s.waits.add((int) number, amount);
                case 'p' -> s.processing.add((int) number, amount);
                case 'W' -> s.waits.max = Math.max(s.waits.max, amount);
                case 'P' -> s.processing.max = Math.max(s.processing.max, amount);
                default -> s.completed(number, amount);
            }
        }
    }
}
