package dev.sluice.queue;

import java.time.Duration;

/**
 * Counts and times what a queue does in this process: the engine calls it at each change that this process makes
 * (an add it sends, an attempt one of its workers starts or ends), never for another process's changes, so that a
 * sum over processes counts each job once. It is the seam for a metrics library ({@code sluice-micrometer} binds
 * one); register it with {@link JobQueue#addMetrics}.
 *
 * <p>Times come from the engine's clock (Redis's on the Redis engine): {@code waited} runs from when the job was
 * ready (added, its delay or backoff over, or sent straight back to waiting) to its attempt's start, whichever
 * process made it ready; {@code processing} from the attempt's start to its end as the engine recorded them.
 *
 * <p>Every method has a do-nothing default. Calls come after the change, outside the queue's locks, on the thread
 * that made the change: one thread's calls come in the order of its changes, and those of different threads (an
 * adding thread, a worker's) in no set order, several at once; implementations must be thread-safe, and quick (a
 * counter's increment). What an implementation throws is caught and logged once per instance (SLF4J, at WARN); it
 * changes nothing in the queue. {@code group} is the job's group, {@code null} for a job without one.
 */
public interface QueueMetrics {
    /**
     * A job was added by this process (a duplicate that added nothing is not counted; a run of a repeatable job
     * that this process planned is).
     *
     * @param group the job's group, or null
     */
    default void added(String group) {}

    /**
     * An attempt started in one of this process's workers.
     *
     * @param group the job's group, or null
     * @param waited from when the job was ready to the attempt's start
     */
    default void started(String group, Duration waited) {}

    /**
     * An attempt completed the job.
     *
     * @param group the job's group, or null
     * @param processing how long the attempt ran
     */
    default void completed(String group, Duration processing) {}

    /**
     * An attempt failed and the job will run again after its backoff.
     *
     * @param group the job's group, or null
     * @param outcome {@link Job.Attempt.Outcome#FAILED} or {@link Job.Attempt.Outcome#TIMED_OUT}
     * @param processing how long the attempt ran
     */
    default void retrying(String group, Job.Attempt.Outcome outcome, Duration processing) {}

    /**
     * An attempt ended and the job failed for good: no attempt left, a failure that is not retried, or
     * rate-limited more often than it may be.
     *
     * @param group the job's group, or null
     * @param outcome how the last attempt ended: {@link Job.Attempt.Outcome#FAILED}, {@link
     *     Job.Attempt.Outcome#TIMED_OUT} or {@link Job.Attempt.Outcome#RATE_LIMITED}
     * @param processing how long the attempt ran
     */
    default void failed(String group, Job.Attempt.Outcome outcome, Duration processing) {}

    /**
     * The processor said it was rate-limited ({@link Result#rateLimited}); the job waits again and {@code scope} is
     * paused.
     *
     * @param group the job's group, or null
     * @param scope what was paused
     * @param processing how long the attempt ran
     */
    default void rateLimited(String group, Result.Scope scope, Duration processing) {}

    /**
     * The processor asked to run again later ({@link Result#runAgainAfter}).
     *
     * @param group the job's group, or null
     * @param processing how long the attempt ran
     */
    default void rescheduled(String group, Duration processing) {}

    /**
     * The attempt's worker closed before it finished, or gave the job back: the job waits again, no attempt used.
     *
     * @param group the job's group, or null
     * @param processing how long the attempt ran
     */
    default void interrupted(String group, Duration processing) {}
}
