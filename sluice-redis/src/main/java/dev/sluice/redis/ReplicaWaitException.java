package dev.sluice.redis;

import dev.sluice.SluiceException;
import java.util.List;

/**
 * An add that {@link RedisSluice.Builder#waitForReplicas} makes wait for replicas was written on the Redis master,
 * but fewer replicas than required acknowledged it in time. Whether the jobs survive a failover is unknown; until
 * one happens they are in the queue like any other. Adding them again with the same job ids is safe: an id already
 * there is a duplicate, and adds nothing.
 */
public final class ReplicaWaitException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** How many replicas acknowledged the write. */
    private final int acknowledged;

    /** How many replicas had to. */
    private final int required;

    /** The ids of the add's jobs. */
    private final String[] jobIds;

    /**
     * Creates the exception.
     *
     * @param message what happened, naming the jobs, the replicas and the wait
     * @param acknowledged how many replicas acknowledged the write; 0 when it could not be confirmed at all
     * @param required how many replicas had to
     * @param jobIds the ids of the jobs the add wrote, or found there already
     */
    public ReplicaWaitException(String message, int acknowledged, int required, List<String> jobIds) {
        super(message);
        this.acknowledged = acknowledged;
        this.required = required;
        this.jobIds = jobIds.toArray(String[]::new);
    }

    /**
     * How many replicas acknowledged the write within the wait.
     *
     * @return 0 or more, fewer than {@link #required()}
     */
    public int acknowledged() {
        return acknowledged;
    }

    /**
     * How many replicas the engine waits for.
     *
     * @return the {@code replicas} of {@link RedisSluice.Builder#waitForReplicas}
     */
    public int required() {
        return required;
    }

    /**
     * The ids of the jobs of the add, in the order they were given (ids the queue made for jobs given none too).
     *
     * @return the ids, unmodifiable
     */
    public List<String> jobIds() {
        return List.of(jobIds);
    }
}
