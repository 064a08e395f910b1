package dev.sluice.queue;

/**
 * The job a {@link Processor} is running, and what the processor may report while it runs.
 *
 * @param <T> the payload type
 */
public interface JobContext<T> {
    /** The job as it was when this attempt started. */
    Job<T> job();

    /**
     * The job's payload. If the queue's codec cannot decode it, this throws and the attempt ends: the job fails
     * for good, its reason naming the codec, the job and the codec's exception.
     */
    default T payload() {
        return job().payload();
    }

    /** The number of this attempt, 1 for the first. */
    int attempt();

    /**
     * Reports progress, 0 to 100, to the job and the queue's listeners. Ignored once the attempt has ended
     * (timed out, or its worker closed).
     *
     * @throws IllegalArgumentException if {@code percent} is outside 0 to 100
     */
    void progress(int percent);

    /** Whether this attempt has ended without the processor: timed out, or its worker closed. */
    boolean isCancelled();
}
