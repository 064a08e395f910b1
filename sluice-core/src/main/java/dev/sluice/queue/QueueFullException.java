package dev.sluice.queue;

import dev.sluice.SluiceException;

/**
 * An add found the queue, or the group of one of its jobs, holding its maximum of waiting and delayed jobs;
 * nothing of that add was kept.
 */
public class QueueFullException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final String queue;
    private final String group;
    private final int maxWaiting;

    /**
     * A full queue called {@code queue}, or a full {@code group} of it ({@code null}: the queue itself), which
     * holds at most {@code maxWaiting} jobs not yet started.
     */
    public QueueFullException(String queue, String group, int maxWaiting, String message) {
        super(message);
        this.queue = queue;
        this.group = group;
        this.maxWaiting = maxWaiting;
    }

    /** The queue's name. */
    public String queue() {
        return queue;
    }

    /** The group that was full, or {@code null} when the queue itself was. */
    public String group() {
        return group;
    }

    /** The bound on waiting and delayed jobs that was reached: the queue's, or the group's. */
    public int maxWaiting() {
        return maxWaiting;
    }
}
