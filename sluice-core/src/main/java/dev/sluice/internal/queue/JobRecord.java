package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.time.SluiceClock;
import java.util.ArrayList;
import java.util.List;

/** One job's mutable state. Every field is guarded by its queue's lock. */
final class JobRecord {
    final String id;
    final String name;
    final byte[] payload;
    final Group.Key groupKey;
    final JobOptions options;
    final long createdAt;
    final String repeatId;
    final long scheduledAt;

    long seq;
    /** Its place in its group's lane while it waits: {@code seq} at the back, below every other at the front. */
    long waitOrder;

    JobState state;
    boolean removed;
    long readyAt;
    long runAt;
    long startedAt;
    long finishedAt;
    /** Which finish of the queue this job's latest is (0 while it is not finished): tells a stale entry from a live one. */
    long finish;

    int attemptsMade;
    int rateLimits;
    int progress;
    byte[] result;
    Job.Failure failure;
    /** Attempts started; the first is kept in the fields below, so a job that runs once allocates nothing. */
    int attemptCount;

    private long firstStart;
    private long firstEnd;
    private Job.Attempt.Outcome firstOutcome;
    private String firstError;
    private List<Job.Attempt> later;

    /** Bumped at every start and every forced end: a worker whose token no longer matches lost the job. */
    int token;

    /** The attempt that owns the job while it is active. */
    InMemoryWorker.Claim claim;

    SluiceClock.Timer timeoutTimer;

    Group group;
    Group.Stats stats;

    JobRecord(
            String id,
            String name,
            byte[] payload,
            Group.Key groupKey,
            JobOptions options,
            long createdAt,
            String repeatId,
            long scheduledAt) {
        this.id = id;
        this.name = name;
        this.payload = payload;
        this.groupKey = groupKey;
        this.options = options;
        this.createdAt = createdAt;
        this.repeatId = repeatId;
        this.scheduledAt = scheduledAt;
    }

    int priority() {
        return options.priority();
    }

    void startAttempt(long now) {
        attemptCount++;
        if (attemptCount == 1) {
            firstStart = now;
        } else {
            if (later == null) {
                later = new ArrayList<>(2);
            } else if (later.size() == Job.MAX_ATTEMPTS_RECORDED - 1) {
                later.remove(0);
            }
            later.add(new Job.Attempt(attemptCount, SluiceClock.toInstant(now), null, null, null));
        }
    }

    void endAttempt(long now, Job.Attempt.Outcome outcome, String error) {
        if (attemptCount == 1) {
            firstEnd = now;
            firstOutcome = outcome;
            firstError = error;
        } else {
            Job.Attempt running = later.get(later.size() - 1);
            later.set(
                    later.size() - 1,
                    new Job.Attempt(running.number(), running.startedAt(), SluiceClock.toInstant(now), outcome, error));
        }
    }

    List<Job.Attempt> attempts() {
        if (attemptCount == 0) {
            return List.of();
        }
        List<Job.Attempt> all = new ArrayList<>(attemptCount);
        all.add(new Job.Attempt(
                1,
                SluiceClock.toInstant(firstStart),
                firstOutcome == null ? null : SluiceClock.toInstant(firstEnd),
                firstOutcome,
                firstError));
        if (later != null) {
            all.addAll(later);
        }
        return all;
    }
}
