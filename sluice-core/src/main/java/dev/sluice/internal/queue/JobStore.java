package dev.sluice.internal.queue;

import dev.sluice.queue.JobState;
import dev.sluice.queue.Retention;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * A queue's jobs by id, its delayed jobs by due time, its finished jobs by state (newest kept, expiring by age)
 * and the ids it still remembers after their jobs were removed; the retention and de-duplication rules are
 * {@link RetentionRules}. Guarded by the queue's lock.
 */
final class JobStore {
    /** Delayed jobs in the order they become due; equal times in the order they were delayed. */
    static final Comparator<JobRecord> BY_RUN_AT =
            Comparator.<JobRecord>comparingLong(j -> j.runAt).thenComparingLong(j -> j.seq);

    private final WakeTimer wakeTimer;
    private final HashMap<String, JobRecord> jobs = new HashMap<>();
    private final PriorityQueue<JobRecord> delayed = new PriorityQueue<>(BY_RUN_AT);
    private final Finished completed = new Finished(JobState.COMPLETED);
    private final Finished failed = new Finished(JobState.FAILED);
    /** When kept finished jobs expire; an entry whose job finished again since (or left) is skipped. */
    private final PriorityQueue<Expiry> expiring = new PriorityQueue<>(Comparator.comparingLong(Expiry::at));

    private final HashMap<String, Long> rememberedIds = new HashMap<>();
    private final PriorityQueue<Map.Entry<String, Long>> forgetting = new PriorityQueue<>(Map.Entry.comparingByValue());
    private long finishes;
    private long nextId;

    JobStore(WakeTimer wakeTimer) {
        this.wakeTimer = wakeTimer;
    }

    // ---------------------------------------------------------------- by id

    JobRecord get(String id) {
        return jobs.get(id);
    }

    void put(JobRecord job) {
        jobs.put(job.id, job);
    }

    Collection<JobRecord> all() {
        return jobs.values();
    }

    /** An id the queue neither holds nor remembers. */
    String newId() {
        String id;
        do {
            id = Long.toString(++nextId);
        } while (jobs.containsKey(id) || rememberedIds.containsKey(id));
        return id;
    }

    /** Whether an add with {@code id} at {@code now} is a duplicate: the job is held or its id remembered. */
    boolean isHeld(String id, long now) {
        return jobs.containsKey(id) || remembers(id, now);
    }

    /** Whether {@code id}, whose job was removed, still de-duplicates at {@code now}; forgets it once it does not. */
    boolean remembers(String id, long now) {
        Long until = rememberedIds.get(id);
        if (until == null) {
            return false;
        }
        if (RetentionRules.isRemembered(until, now)) {
            return true;
        }
        rememberedIds.remove(id);
        return false;
    }

    /** Forgets a waiting or delayed job that leaves the queue. */
    void removeUnstarted(JobRecord job) {
        if (job.state == JobState.DELAYED) {
            delayed.remove(job);
        }
        job.removed = true;
        jobs.remove(job.id);
    }

    // ---------------------------------------------------------------- delayed

    void delay(JobRecord job) {
        delayed.add(job);
        wakeTimer.arm(job.runAt);
    }

    /** Takes delayed {@code job} out of the delayed jobs, to run before its time. */
    void undelay(JobRecord job) {
        delayed.remove(job);
    }

    /** The earliest delayed job if it is due at {@code now}, taken out; else null. */
    JobRecord pollDue(long now) {
        JobRecord job = delayed.peek();
        if (job == null || !AttemptRules.isDue(job.runAt, now)) {
            return null;
        }
        return delayed.poll();
    }

    /** The delayed jobs, soonest first. */
    List<JobRecord> delayedInOrder() {
        List<JobRecord> sorted = new ArrayList<>(delayed);
        sorted.sort(BY_RUN_AT);
        return sorted;
    }

    /** Every delayed job, in no order. */
    Collection<JobRecord> delayedJobs() {
        return delayed;
    }

    // ---------------------------------------------------------------- finished

    /**
     * Keeps {@code job}, just finished at {@code now} in {@code state}, under its retention: the oldest of that
     * state beyond the count are removed (the job itself, with keepNone), and it expires at its age.
     */
    void finished(JobRecord job, JobState state, long now) {
        job.state = state;
        job.finishedAt = now;
        job.finish = ++finishes;
        Retention retention = state == JobState.COMPLETED ? job.options.keepCompleted() : job.options.keepFailed();
        Finished kept = finishedIn(state);
        kept.add(job);
        for (long evict = RetentionRules.evictions(retention, kept.count); evict > 0; evict--) {
            removeFinished(kept.oldest(), now);
        }
        long expiresAt = RetentionRules.expiresAt(retention, now);
        if (!job.removed && expiresAt != RetentionRules.NEVER) {
            expiring.add(new Expiry(job, job.finish, expiresAt));
            wakeTimer.arm(expiresAt);
        }
    }

    /** Removes a finished job; its id is remembered for its de-duplication window, if one is left. */
    void removeFinished(JobRecord job, long now) {
        Finished kept = finishedIn(job.state);
        kept.count--;
        kept(job, job.state, -1);
        kept.maybeCompact();
        job.removed = true;
        jobs.remove(job.id);
        long until = RetentionRules.rememberUntil(job.options.deduplicateFor(), job.finishedAt);
        if (RetentionRules.isRemembered(until, now)) {
            rememberedIds.put(job.id, until);
            forgetting.add(Map.entry(job.id, until));
            wakeTimer.arm(until);
        }
    }

    /** Takes a finished job (completed or failed) out of the finished ones, to run again. */
    void revive(JobRecord job) {
        Finished finished = finishedIn(job.state);
        finished.count--;
        finished.maybeCompact();
        kept(job, job.state, -1);
        job.finishedAt = 0;
        job.finish = 0;
    }

    long count(JobState state) {
        return finishedIn(state).count;
    }

    /** The finished jobs of {@code state}, newest first. */
    void forEachNewestFirst(JobState state, Consumer<JobRecord> action) {
        finishedIn(state).forEachNewestFirst(action);
    }

    /**
     * Into {@code into}, until it holds {@code most}: the finished jobs of {@code state} that finished before the
     * {@code finish}-th finish of the queue, newest first.
     */
    void finishedBefore(JobState state, long finish, int most, List<JobRecord> into) {
        finishedIn(state).before(finish, most, into);
    }

    /** Removes the kept jobs whose age ran out at {@code now} and forgets the ids whose window ended. */
    void expire(long now) {
        Expiry expiry;
        while ((expiry = expiring.peek()) != null && RetentionRules.isExpired(expiry.at(), now)) {
            expiring.poll();
            if (expiry.isLive()) {
                removeFinished(expiry.job(), now);
            }
        }
        Map.Entry<String, Long> remembered;
        while ((remembered = forgetting.peek()) != null && !RetentionRules.isRemembered(remembered.getValue(), now)) {
            forgetting.poll();
            rememberedIds.remove(remembered.getKey(), remembered.getValue());
        }
    }

    /** The earliest time something here falls due: a delayed job, an expiry, an id to forget. */
    long nextDue() {
        long next = Long.MAX_VALUE;
        if (!delayed.isEmpty()) {
            next = Math.min(next, delayed.peek().runAt);
        }
        if (!expiring.isEmpty()) {
            next = Math.min(next, expiring.peek().at());
        }
        if (!forgetting.isEmpty()) {
            next = Math.min(next, forgetting.peek().getValue());
        }
        return next;
    }

    private Finished finishedIn(JobState state) {
        return state == JobState.COMPLETED ? completed : failed;
    }

    /** Counts a finished job kept (+1) or removed (-1) for its group. */
    private static void kept(JobRecord job, JobState state, int delta) {
        Group.Stats s = job.stats;
        if (state == JobState.COMPLETED) {
            s.keptCompleted += delta;
        } else {
            s.keptFailed += delta;
        }
    }

    /** When the job that finished for the {@code finish}-th time expires. */
    private record Expiry(JobRecord job, long finish, long at) {
        boolean isLive() {
            return !job.removed
                    && job.finish == finish
                    && (job.state == JobState.COMPLETED || job.state == JobState.FAILED);
        }
    }

    /** Finished jobs of one state, oldest first; entries of jobs that left the state are skipped. */
    private static final class Finished {
        private final JobState state;
        private final ArrayDeque<Entry> entries = new ArrayDeque<>();
        long count;

        private record Entry(JobRecord job, long finish) {}

        Finished(JobState state) {
            this.state = state;
        }

        private boolean live(Entry e) {
            return !e.job.removed && e.job.state == state && e.job.finish == e.finish;
        }

        void add(JobRecord job) {
            entries.addLast(new Entry(job, job.finish));
            count++;
            kept(job, state, 1);
        }

        JobRecord oldest() {
            Entry e;
            while ((e = entries.peekFirst()) != null && !live(e)) {
                entries.pollFirst();
            }
            return e == null ? null : e.job;
        }

        void forEachNewestFirst(Consumer<JobRecord> action) {
            Iterator<Entry> it = entries.descendingIterator();
            while (it.hasNext()) {
                Entry e = it.next();
                if (live(e)) {
                    action.accept(e.job);
                }
            }
        }

        void before(long finish, int most, List<JobRecord> into) {
            Iterator<Entry> it = entries.descendingIterator();
            while (it.hasNext() && into.size() < most) {
                Entry e = it.next();
                if (e.finish < finish && live(e)) {
                    into.add(e.job);
                }
            }
        }

        void maybeCompact() {
            if (entries.size() > 64 && entries.size() > 2 * count) {
                entries.removeIf(e -> !live(e));
            }
        }
    }
}
