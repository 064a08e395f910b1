package dev.sluice.micrometer;

import dev.sluice.queue.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a job's snapshot tells of its attempts' times. */
final class Attempts {
    private Attempts() {}

    /**
     * How long {@code job}, just started, waited for its attempt since it was ready: for its first attempt, from
     * its add plus its delay; after an attempt that sent it straight back to waiting (rate-limited, or interrupted by
     * its worker's close), from that attempt's end; after a backoff or a run-again delay, from {@code readyAfterDelay}
     * (that attempt's end plus the delay, as its event told), or null (no sample) when that is not known.
     */
    static Duration waited(Job<?> job, Instant readyAfterDelay) {
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
            boolean straightBack = previous.outcome() == Job.Attempt.Outcome.RATE_LIMITED
                    || previous.outcome() == Job.Attempt.Outcome.INTERRUPTED;
            ready = straightBack ? previous.finishedAt() : readyAfterDelay;
        }
        if (ready == null || current.startedAt() == null || current.startedAt().isBefore(ready)) {
            return null; // unknown, or the attempt started before it: the job was made ready early some other way
        }
        return Duration.between(ready, current.startedAt());
    }

    /** When {@code job}, just sent back to wait {@code delay}, is ready again; null if its snapshot has no ended attempt. */
    static Instant readyAfter(Job<?> job, Duration delay) {
        Job.Attempt attempt = lastEnded(job);
        return attempt == null || delay == null ? null : attempt.finishedAt().plus(delay);
    }

    /**
     * When jobs sent back to wait (a backoff, a run-again delay) are ready again, by job id, until they start: at
     * most {@code capacity} jobs, the longest known forgotten first (their next start then has no wait sample).
     */
    static final class ReadyTimes {
        private final Map<String, Instant> byJob;

        ReadyTimes(int capacity) {
            this.byJob = new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
                    return size() > capacity;
                }
            };
        }

        synchronized void put(String job, Instant ready) {
            if (ready != null) {
                byJob.put(job, ready);
            }
        }

        /** The ready time of {@code job}, forgotten once read; null if none is known. */
        synchronized Instant take(String job) {
            return byJob.isEmpty() ? null : byJob.remove(job);
        }

        synchronized int size() {
            return byJob.size();
        }
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
