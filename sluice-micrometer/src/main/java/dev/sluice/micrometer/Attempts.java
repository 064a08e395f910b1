package dev.sluice.micrometer;

import dev.sluice.queue.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** What a job's snapshot tells of its attempts' times. */
final class Attempts {
    private Attempts() {}

    /**
     * How long {@code job}, just started, waited for its attempt since it was ready, where the snapshot tells when
     * it was ready: for its first attempt, its add plus its delay; after an attempt that sent it straight back to
     * waiting (rate-limited, or interrupted by its worker's close), that attempt's end. After a backoff or a
     * run-again delay the snapshot does not say when the job became ready, so there is no sample: null.
     */
    static Duration waited(Job<?> job) {
        List<Job.Attempt> attempts = job.attempts();
        if (attempts.isEmpty()) {
            return null;
        }
        Job.Attempt current = attempts.get(attempts.size() - 1);
        Instant ready;
        if (attempts.size() == 1) {
            Duration delay = job.options().delay();
            ready = delay == null ? job.createdAt() : job.createdAt().plus(delay);
        } else {
            Job.Attempt previous = attempts.get(attempts.size() - 2);
            if (previous.outcome() != Job.Attempt.Outcome.RATE_LIMITED
                    && previous.outcome() != Job.Attempt.Outcome.INTERRUPTED) {
                return null;
            }
            ready = previous.finishedAt();
        }
        if (ready == null || current.startedAt() == null) {
            return null;
        }
        return Duration.between(ready, current.startedAt());
    }

    /** The latest attempt of {@code job} if it has ended, else null. */
    static Job.Attempt lastEnded(Job<?> job) {
        List<Job.Attempt> attempts = job.attempts();
        if (attempts.isEmpty()) {
            return null;
        }
        Job.Attempt last = attempts.get(attempts.size() - 1);
        return last.outcome() == null || last.startedAt() == null || last.finishedAt() == null ? null : last;
    }
}
