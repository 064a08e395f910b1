package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.time.Clock;
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
    JobState state;
    boolean removed;
    long readyAt;
    long runAt;
    long startedAt;
    long finishedAt;
    long expiresAt = Long.MAX_VALUE;
    int attemptsMade;
    int rateLimits;
    int progress;
    String result;
    Job.Failure failure;
    List<Job.Attempt> attempts;

    /** Bumped at every start and every forced end: a worker whose token no longer matches lost the job. */
    int token;

    InMemoryWorker<?>.Slot slot;
    Clock.Timer timeoutTimer;

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

    void addAttempt(Job.Attempt attempt) {
        if (attempts == null) {
            attempts = new ArrayList<>(2);
        }
        attempts.add(attempt);
    }

    /** Replaces the last (running) attempt with its ended form. */
    void endAttempt(Job.Attempt ended) {
        attempts.set(attempts.size() - 1, ended);
    }

    Job.Attempt lastAttempt() {
        return attempts.get(attempts.size() - 1);
    }
}
