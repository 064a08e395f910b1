package dev.sluice.queue;

import java.time.Duration;

/**
 * Hears what happens to a queue's jobs. Every method has a do-nothing default; {@link #none()} does nothing.
 * Events are told after the change is made, on a thread of the queue's own (one per queue, never the thread that
 * made the change, which does not wait for them), one at a time and in the order the changes happened (a job's
 * {@code onAdded} comes before its {@code onActive}). {@link JobQueue#awaitListeners} waits until the events of the
 * changes made so far have been told, for tests and for shutdowns; an engine's close waits for them too (10 s at
 * most). A listener that blocks holds up the queue's other listeners, not its jobs: keep listeners quick. What a
 * listener throws is caught and logged (SLF4J, at WARN); it changes nothing in the queue.
 *
 * <p>On an engine shared by processes (Redis), a listener hears the changes every process makes, in the one
 * order they happened. Its job snapshot is the job as it was at the change; for another process's change, with
 * the payload as the engine holds it when the event is read ({@code null} if the job is gone by then).
 *
 * @param <T> the payload type
 */
public interface QueueListener<T> {
    /**
     * A listener that does nothing, typed for the queue it is given to: {@code QueueListener<Order> l =
     * QueueListener.none();}. Always the same instance.
     *
     * @param <T> the payload type
     * @return the listener
     */
    @SuppressWarnings("unchecked")
    static <T> QueueListener<T> none() {
        return (QueueListener<T>) NoListener.INSTANCE;
    }

    /**
     * A job was added (not called for a duplicate).
     *
     * @param job the job as added
     */
    default void onAdded(Job<T> job) {}

    /**
     * A job started an attempt.
     *
     * @param job the job, ACTIVE
     */
    default void onActive(Job<T> job) {}

    /**
     * A running job reported progress.
     *
     * @param job the job, with the new progress
     * @param percent the progress, 0 to 100
     */
    default void onProgress(Job<T> job, int percent) {}

    /**
     * A job completed.
     *
     * @param job the job, COMPLETED, with its result
     */
    default void onCompleted(Job<T> job) {}

    /**
     * An attempt failed and the job will run again after {@code delay}.
     *
     * @param job the job, DELAYED or WAITING
     * @param error what the processor threw; {@code null} for a timeout. For an attempt that failed in another
     *     process, a stand-in with the original's message whose {@code toString()} names the original's class
     * @param delay the backoff before the next attempt
     */
    default void onRetrying(Job<T> job, Throwable error, Duration delay) {}

    /**
     * A job failed for good.
     *
     * @param job the job, FAILED, with its failure
     */
    default void onFailed(Job<T> job) {}

    /**
     * A job was rate-limited by its processor and went back to waiting; {@code scope} pauses for {@code
     * retryAfter}.
     *
     * @param job the job, WAITING
     * @param scope what pauses
     * @param retryAfter for how long
     */
    default void onRateLimited(Job<T> job, Result.Scope scope, Duration retryAfter) {}

    /**
     * A processor asked to run its job again after {@code delay} ({@link Result#runAgainAfter}); no attempt
     * was used.
     *
     * @param job the job, DELAYED (WAITING for a zero delay)
     * @param delay how long until it may run again
     */
    default void onRescheduled(Job<T> job, Duration delay) {}

    /**
     * An {@link dev.sluice.limit.AdaptiveRate} of the queue or of a group changed. Heard in every process.
     *
     * @param change what changed, why, from and to what
     */
    default void onRateChanged(RateChange change) {}

    /** The queue has no waiting, delayed or active jobs left. */
    default void onDrained() {}

    /**
     * This listener fell so far behind that {@code count} events were gone before it could hear them; it hears
     * the next one kept after this. Only engines that keep a bounded log of events for listeners in other
     * processes call it (Redis: {@code RedisSluice.builder().eventLogSize}); the in-memory engine never does. A
     * listener that keeps its own view of the queue should read the queue again (counts, jobs) when it hears it.
     *
     * @param count how many events it missed, at least 1
     */
    default void onEventsMissed(long count) {}
}

/** The listener {@link QueueListener#none()} returns: it overrides nothing, so it hears nothing. */
final class NoListener implements QueueListener<Object> {
    static final NoListener INSTANCE = new NoListener();

    private NoListener() {}

    @Override
    public String toString() {
        return "QueueListener.none()";
    }
}
