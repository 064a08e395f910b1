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
    private final AtomicReferenceArray<Timer> processingByOutcome = new AtomicReferenceArray<>(OUTCOMES.length);

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

    /** Records the wait of an attempt that just started. */
    void started(Duration waited) {
        MeterSet.record(waitTime, waited);
    }

    void completed(Duration processing) {
        completed.increment();
        ended(Job.Attempt.Outcome.COMPLETED, processing);
    }

    void failed(Job.Attempt.Outcome outcome, Duration processing) {
        failed.increment();
        ended(outcome, processing);
    }

    void retried(Job.Attempt.Outcome outcome, Duration processing) {
        retried.increment();
        ended(outcome, processing);
    }

    void rateLimited(Result.Scope scope, Duration processing) {
        (scope == Result.Scope.QUEUE ? rateLimitedQueue : rateLimitedGroup).increment();
        ended(Job.Attempt.Outcome.RATE_LIMITED, processing);
    }

    void rescheduled(Duration processing) {
        rescheduled.increment();
        ended(Job.Attempt.Outcome.RESCHEDULED, processing);
    }

    void interrupted(Duration processing) {
        ended(Job.Attempt.Outcome.INTERRUPTED, processing);
    }

    /** Records the processing time of an attempt that just ended, by its outcome. */
    private void ended(Job.Attempt.Outcome outcome, Duration processing) {
        int index = outcome.ordinal();
        Timer timer = processingByOutcome.get(index);
        if (timer == null) {
            timer = meters.timer(
                    names.processing(),
                    tags.and(MeterNames.OUTCOME, outcome.name().toLowerCase(Locale.ROOT)));
            processingByOutcome.compareAndSet(index, null, timer);
        }
        MeterSet.record(timer, processing);
    }
}
