package dev.sluice.internal.queue;

import java.util.ArrayDeque;
import java.util.TreeMap;

/**
 * One group's jobs and counters: its waiting jobs by priority, and what it has running. Created on first use
 * and released when it holds nothing. Guarded by the queue's lock.
 */
final class Group {
    /** A group's identity; the ungrouped jobs have {@link #UNGROUPED}. */
    record Key(String name) {
        static final Key UNGROUPED = new Key(null);

        static Key of(String name) {
            return name == null ? UNGROUPED : new Key(name);
        }

        /**
         * The order in which groups that become ready at the same moment join the ring, the same in every engine:
         * by their names as the Redis engine writes them in keys ({@code g<name>}, {@code u} for the ungrouped),
         * byte by byte in UTF-8.
         */
        static final java.util.Comparator<Key> TIE_ORDER =
                (a, b) -> java.util.Arrays.compareUnsigned(a.inKeys(), b.inKeys());

        private byte[] inKeys() {
            return (name == null ? "u" : "g" + name).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }

        /** The key this group uses in the queue's rate tables. */
        String rateKey() {
            return name == null ? "\u0000ungrouped" : name;
        }
    }

    final Key key;
    /** Waiting jobs, largest priority first; each lane in the order its jobs became ready. */
    private final TreeMap<Integer, ArrayDeque<JobRecord>> lanes = new TreeMap<>((a, b) -> Integer.compare(b, a));

    private ArrayDeque<JobRecord> zeroLane;

    int waiting;
    int delayed;
    int active;
    long pausedUntil = Long.MIN_VALUE;
    /** Where the group is: in the ready ring, parked until a time, or held back by its concurrency. */
    boolean inRing;

    long parkedUntil = Long.MIN_VALUE;
    boolean heldByConcurrency;
    /** Set when the queue let the group go; a job holding it looks its group up again. */
    boolean released;

    final Stats stats;

    Group(Key key, Stats stats) {
        this.key = key;
        this.stats = stats;
    }

    void addLast(JobRecord job) {
        lane(job.priority()).addLast(job);
        waiting++;
    }

    void addFirst(JobRecord job) {
        lane(job.priority()).addFirst(job);
        waiting++;
    }

    private ArrayDeque<JobRecord> lane(int priority) {
        if (priority == 0) {
            if (zeroLane == null) {
                zeroLane = new ArrayDeque<>();
                lanes.put(0, zeroLane);
            }
            return zeroLane;
        }
        return lanes.computeIfAbsent(priority, p -> new ArrayDeque<>());
    }

    /** Takes the next waiting job, or null. Jobs removed from the queue meanwhile are skipped. */
    JobRecord poll() {
        ArrayDeque<JobRecord> only = zeroLane;
        if (only != null && lanes.size() == 1) {
            // the common case, every waiting job at priority 0: no walk of the lanes (the loop below ends it else)
            JobRecord job;
            while ((job = only.pollFirst()) != null) {
                if (!job.removed) {
                    waiting--;
                    dropIfEmpty(0, only);
                    return job;
                }
            }
        }
        while (!lanes.isEmpty()) {
            var entry = lanes.firstEntry();
            ArrayDeque<JobRecord> lane = entry.getValue();
            JobRecord job;
            while ((job = lane.pollFirst()) != null) {
                if (!job.removed) {
                    waiting--;
                    dropIfEmpty(entry.getKey(), lane);
                    return job;
                }
            }
            dropIfEmpty(entry.getKey(), lane);
        }
        return null;
    }

    private void dropIfEmpty(int priority, ArrayDeque<JobRecord> lane) {
        if (lane.isEmpty()) {
            lanes.remove(priority);
            if (lane == zeroLane) {
                zeroLane = null;
            }
        }
    }

    /** Forgets a waiting job that was removed from the queue (it stays in its lane, skipped when polled). */
    void forgetWaiting() {
        waiting--;
        if (waiting == 0) {
            lanes.clear();
            zeroLane = null;
        }
    }

    /** Every waiting job, in the order they will run. */
    void forEachWaiting(java.util.function.Consumer<JobRecord> action) {
        for (ArrayDeque<JobRecord> lane : lanes.values()) {
            for (JobRecord job : lane) {
                if (!job.removed) {
                    action.accept(job);
                }
            }
        }
    }

    /**
     * Into {@code into}, until it holds {@code most}: the waiting jobs after the place (priority, waitOrder, id) of
     * {@code after}, in the order they will run; every one if {@code after} is null.
     */
    void waitingAfter(JobCursor after, int most, java.util.List<JobRecord> into) {
        var from = after == null ? lanes : lanes.tailMap((int) after.first(), true);
        for (ArrayDeque<JobRecord> lane : from.values()) {
            for (JobRecord job : lane) {
                if (into.size() >= most) {
                    return;
                }
                if (!job.removed && (after == null || job.priority() != after.first() || isAfter(job, after))) {
                    into.add(job);
                }
            }
        }
    }

    private static boolean isAfter(JobRecord job, JobCursor after) {
        int byOrder = Long.compare(job.waitOrder, after.second());
        return byOrder > 0 || byOrder == 0 && job.id.compareTo(after.id()) > 0;
    }

    /** Totals and latencies of one group, or of the queue. */
    static final class Stats {
        long added;
        long completed;
        long failed;
        long keptCompleted;
        long keptFailed;
        final Histogram waitTime = new Histogram();
        final Histogram processingTime = new Histogram();
        final Throughput completions = new Throughput();
    }
}
