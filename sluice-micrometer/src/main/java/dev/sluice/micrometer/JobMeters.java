package dev.sluice.micrometer;

import dev.sluice.queue.Job;
import dev.sluice.queue.Result;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The counters and timers of a queue's jobs, or of one group's: the same meters under the names of {@link
 * Names#QUEUE} or {@link Names#GROUP}.
 */
final class JobMeters {
    /** The meter names of one level. */
    record Names(
            String added,
            String completed,
            String failed,
            String retried,
            String rateLimited,
            String rescheduled,
            String waitTime,
            String processing) {
        static final Names QUEUE = new Names(
                MeterNames.QUEUE_JOBS_ADDED,
                MeterNames.QUEUE_JOBS_COMPLETED,
                MeterNames.QUEUE_JOBS_FAILED,
                MeterNames.QUEUE_JOBS_RETRIED,
                MeterNames.QUEUE_JOBS_RATE_LIMITED,
                MeterNames.QUEUE_JOBS_RESCHEDULED,
                MeterNames.QUEUE_WAIT,
                MeterNames.QUEUE_PROCESSING);
        static final Names GROUP = new Names(
                MeterNames.GROUP_JOBS_ADDED,
                MeterNames.GROUP_JOBS_COMPLETED,
                MeterNames.GROUP_JOBS_FAILED,
                MeterNames.GROUP_JOBS_RETRIED,
                MeterNames.GROUP_JOBS_RATE_LIMITED,
                MeterNames.GROUP_JOBS_RESCHEDULED,
                MeterNames.GROUP_WAIT,
                MeterNames.GROUP_PROCESSING);
    }

    private static final Job.Attempt.Outcome[] OUTCOMES = Job.Attempt.Outcome.values();

    private final MeterSet meters;
    private final Names names;
    private final Tags tags;
    private final Counter added;
    private final Counter completed;
    private final Counter failed;
    private final Counter retried;
    private final Counter rateLimitedGroup;
    private final Counter rateLimitedQueue;
    private final Counter rescheduled;
    private final Timer waitTime;
    /** By attempt outcome, registered at the first attempt that ends so. */
    private final AtomicReferenceArray<Timer> processing = new AtomicReferenceArray<>(OUTCOMES.length);

    JobMeters(MeterSet meters, Names names, Tags tags) {
        this.meters = meters;
        this.names = names;
        this.tags = tags;
        this.added = meters.counter(names.added(), tags);
        this.completed = meters.counter(names.completed(), tags);
        this.failed = meters.counter(names.failed(), tags);
        this.retried = meters.counter(names.retried(), tags);
        this.rateLimitedGroup = meters.counter(names.rateLimited(), tags.and(MeterNames.SCOPE, "group"));
        this.rateLimitedQueue = meters.counter(names.rateLimited(), tags.and(MeterNames.SCOPE, "queue"));
        this.rescheduled = meters.counter(names.rescheduled(), tags);
        this.waitTime = meters.timer(names.waitTime(), tags);
    }

    void added() {
        added.increment();
    }

    /** Records the wait of an attempt that just started, if it is known. */
    void started(Duration waited) {
        if (waited != null) {
            MeterSet.record(waitTime, waited);
        }
    }

    void completed(Job<?> job) {
        completed.increment();
        ended(job);
    }

    void failed(Job<?> job) {
        failed.increment();
        ended(job);
    }

    void retried(Job<?> job) {
        retried.increment();
        ended(job);
    }

    void rateLimited(Job<?> job, Result.Scope scope) {
        (scope == Result.Scope.QUEUE ? rateLimitedQueue : rateLimitedGroup).increment();
        ended(job);
    }

    void rescheduled(Job<?> job) {
        rescheduled.increment();
        ended(job);
    }

    /** Records the processing time of the attempt that just ended, by its outcome. */
    private void ended(Job<?> job) {
        Job.Attempt attempt = Attempts.lastEnded(job);
        if (attempt == null) {
            return;
        }
        int index = attempt.outcome().ordinal();
        Timer timer = processing.get(index);
        if (timer == null) {
            timer = meters.timer(
                    names.processing(),
                    tags.and(MeterNames.OUTCOME, attempt.outcome().name().toLowerCase(Locale.ROOT)));
            processing.compareAndSet(index, null, timer);
        }
        MeterSet.record(timer, Duration.between(attempt.startedAt(), attempt.finishedAt()));
    }
}
