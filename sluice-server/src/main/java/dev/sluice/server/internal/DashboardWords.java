package dev.sluice.server.internal;

import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.WorkerInfo;
import java.time.Instant;
import java.util.List;

/**
 * The one word the dashboard shows for the state of a queue and of a group, answering "why isn't this job running?".
 * The whole rule is here; the first case that holds gives the word.
 *
 * <p>A group:
 *
 * <ol>
 *   <li>{@code paused}: {@code pauseGroup} holds it;
 *   <li>{@code rate-limited} until T: a rate-limited result paused it until T, later than now;
 *   <li>{@code at concurrency}: it has jobs waiting and runs as many as its concurrency allows;
 *   <li>{@code backlogged}: it has jobs waiting (that the queue's rate, concurrency or workers hold back);
 *   <li>{@code running}: nothing waits, some of its jobs run;
 *   <li>{@code idle}: nothing waits or runs (delayed jobs may be due later).
 * </ol>
 *
 * <p>A queue:
 *
 * <ol>
 *   <li>{@code paused}: the queue is paused;
 *   <li>{@code idle} or {@code running}: nothing waits, and nothing or something runs;
 *   <li>{@code rate-limited} until T: every waiting job is in a group that is paused or rate-limited (among the groups
 *       the snapshot read), at least one is rate-limited, and T is the earliest end of those pauses; {@code paused}
 *       if every one of those groups is paused by hand;
 *   <li>{@code stalled}: jobs wait and no worker is attached, or none runs and none finished since the last snapshot;
 *   <li>{@code at concurrency}: jobs wait and the queue runs as many as its concurrency allows, or every slot of its
 *       workers is busy;
 *   <li>{@code backlogged}: jobs wait while others run and finish.
 * </ol>
 */
public final class DashboardWords {
    /** The word for a state, and when it ends for {@code rate-limited} (null otherwise). */
    public record Word(String word, Instant until) {
        static final Word PAUSED = new Word("paused", null);
        static final Word AT_CONCURRENCY = new Word("at concurrency", null);
        static final Word BACKLOGGED = new Word("backlogged", null);
        static final Word RUNNING = new Word("running", null);
        static final Word STALLED = new Word("stalled", null);
        static final Word IDLE = new Word("idle", null);

        /** Whether the word says that something holds jobs back that would otherwise start. */
        public boolean throttled() {
            return this == PAUSED || this == AT_CONCURRENCY || until != null;
        }
    }

    private DashboardWords() {}

    /** The word of {@code group} at {@code now}. */
    public static Word group(GroupInfo group, Instant now) {
        if (group.paused()) {
            return Word.PAUSED;
        }
        if (group.pausedUntil() != null && group.pausedUntil().isAfter(now)) {
            return new Word("rate-limited", group.pausedUntil());
        }
        if (group.waiting() > 0) {
            return group.active() >= group.limits().concurrency() ? Word.AT_CONCURRENCY : Word.BACKLOGGED;
        }
        return group.active() > 0 ? Word.RUNNING : Word.IDLE;
    }

    /**
     * The word of a queue at {@code now}.
     *
     * @param paused whether the queue is paused
     * @param counts its jobs per state
     * @param concurrency its queue-wide concurrency
     * @param workers the workers attached to it
     * @param groups the groups the snapshot read
     * @param progressed whether a job completed or failed since the last snapshot (true for the first)
     */
    public static Word queue(
            boolean paused,
            JobCounts counts,
            int concurrency,
            List<WorkerInfo> workers,
            List<GroupInfo> groups,
            boolean progressed,
            Instant now) {
        if (paused) {
            return Word.PAUSED;
        }
        if (counts.waiting() == 0) {
            return counts.active() > 0 ? Word.RUNNING : Word.IDLE;
        }
        long held = 0;
        Instant until = null;
        for (GroupInfo group : groups) {
            Word word = group(group, now);
            if (group.waiting() > 0 && (word == Word.PAUSED || word.until() != null)) {
                held += group.waiting();
                if (word.until() != null && (until == null || word.until().isBefore(until))) {
                    until = word.until();
                }
            }
        }
        if (held >= counts.waiting()) {
            return until == null ? Word.PAUSED : new Word("rate-limited", until);
        }
        if (workers.isEmpty() || (counts.active() == 0 && !progressed)) {
            return Word.STALLED;
        }
        int slots = workers.stream().mapToInt(WorkerInfo::concurrency).sum();
        int busy = workers.stream().mapToInt(WorkerInfo::busy).sum();
        if (counts.active() >= concurrency || busy >= slots) {
            return Word.AT_CONCURRENCY;
        }
        return Word.BACKLOGGED;
    }
}
