package dev.sluice.queue;

import dev.sluice.SluiceException;

/**
 * An add found the queue, or the group of one of its jobs, holding its maximum of waiting and delayed jobs;
 * nothing of that add was kept.
 */
public class QueueFullException extends SluiceException {
    private static final long serialVersionUID = 1L;
    /** The queue's name. */
    private final String queue;
    /** The group that was full, or {@code null} when the queue itself was. */
    private final String group;
    /** The bound that was reached. */
    private final int maxQueued;

    /**
     * A full queue, or a full group of it.
     *
     * @param queue the queue's name
     * @param group the group that was full; {@code null} when the queue itself was
     * @param maxQueued the most waiting and delayed jobs the queue or the group holds
     * @param message what happened, for people
     */
    public QueueFullException(String queue, String group, int maxQueued, String message) {
        super(message);
        this.queue = queue;
        this.group = group;
        this.maxQueued = maxQueued;
    }

    /**
     * The queue's name.
     *
     * @return the name
     */
    public String queue() {
        return queue;
    }

    /**
     * The group that was full.
     *
     * @return the group; {@code null} when the queue itself was full
     */
    public String group() {
        return group;
    }

    /**
     * The bound on waiting and delayed jobs that was reached: the queue's, or the group's.
     *
     * @return the bound
     */
    public int maxQueued() {
        return maxQueued;
    }
}
