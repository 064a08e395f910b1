package dev.sluice.queue;

import java.time.Duration;

/**
 * The job a {@link Processor} is running, and what the processor may report while it runs.
 *
 * @param <T> the payload type
 */
public interface JobContext<T> {
    /**
     * The job now, as a snapshot (its progress, for instance, is the latest reported).
     *
     * @return the job
     */
    Job<T> job();

    /**
     * The job's payload. If the queue's codec cannot decode it, this throws and the attempt ends: the job fails
     * for good, its reason naming the codec, the job and the codec's exception.
     *
     * @return the decoded payload
     */
    default T payload() {
        return job().payload();
    }

    /**
     * The number of this attempt.
     *
     * @return 1 for the first
     */
    int attempt();

    /**
     * Reports progress to the job ({@link Job#progress()}) and the queue's listeners. The range is 0 to 100 on
     * every engine, checked here, at the call, before anything is recorded: a value outside it changes
     * nothing. Progress starts at 0 with each attempt. Ignored once the attempt has ended (timed out, or its
     * worker closed).
     *
     * @param percent how far the attempt has got, 0 to 100
     * @throws IllegalArgumentException if {@code percent} is outside 0 to 100, naming the range and the value
     */
    void progress(int percent);

    /**
     * Whether this attempt has ended without the processor: timed out, or its worker closed. A processor that
     * sees it should stop: its job runs again (or has failed), and what it does now may be done twice.
     *
     * @return {@code true} once the attempt has ended
     */
    boolean isCancelled();

    /**
     * Tells an {@link dev.sluice.limit.AdaptiveRate} what the downstream said of its quota in its answer (the IETF
     * {@code RateLimit} field's {@code r} and {@code t}, or {@code X-RateLimit-Remaining} and {@code -Reset}): the
     * rate goes down to {@code remaining / resetIn} when that is less, and does not climb until the quota resets. The
     * rate told is the nearest adaptive one of {@code scope}: for {@code GROUP} the job's group's (else the queue's),
     * for {@code QUEUE} the queue's (else the group's); without one, nothing happens. Heard at once by every worker,
     * also when the attempt has ended. Every engine's context does this; a context of your own (a test double)
     * ignores it unless it overrides this method.
     *
     * @param scope whose rate the quota bounds
     * @param remaining calls the quota has left, 0 or more
     * @param resetIn how long until the quota resets, above 0 and at most about 73 years
     * @throws IllegalArgumentException if scope is null, remaining negative, or resetIn null, zero, negative or longer
     */
    default void quota(Result.Scope scope, long remaining, Duration resetIn) {}
}
