package dev.sluice.queue;

import java.time.Duration;

/**
 * Hears what happens to a queue's jobs. Every method has a do-nothing default; {@link #NONE} does nothing.
 * Events are delivered after the change is made, outside the queue's locks, one at a time and in the order
 * the changes happened (a job's {@code onAdded} comes before its {@code onActive}), on the thread that made
 * the change or on another thread that is delivering events at that moment. Keep listeners quick; what a
 * listener throws is caught and dropped.
 *
 * @param <T> the payload type
 */
public interface QueueListener<T> {
    /** A listener that does nothing. */
    @SuppressWarnings("rawtypes")
    QueueListener NONE = new QueueListener() {};

    /** A job was added (not called for a duplicate). */
    default void onAdded(Job<T> job) {}

    /** A job started an attempt. */
    default void onActive(Job<T> job) {}

    /** A running job reported progress. */
    default void onProgress(Job<T> job, int percent) {}

    /** A job completed. */
    default void onCompleted(Job<T> job) {}

    /** An attempt failed and the job will run again after {@code delay}. */
    default void onRetrying(Job<T> job, Throwable error, Duration delay) {}

    /** A job failed for good. */
    default void onFailed(Job<T> job) {}

    /**
     * A job was rate-limited by its processor and went back to waiting; {@code scope} pauses for {@code
     * retryAfter}.
     */
    default void onRateLimited(Job<T> job, Result.Scope scope, Duration retryAfter) {}

    /** The queue has no waiting, delayed or active jobs left. */
    default void onDrained() {}
}
