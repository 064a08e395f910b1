package dev.sluice.queue;

import dev.sluice.SluiceException;

/** An add found the queue holding its maximum of waiting jobs; nothing of that add was kept. */
public class QueueFullException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final String queue;
    private final int maxWaiting;

    /** A full queue called {@code queue}, which holds at most {@code maxWaiting} jobs not yet started. */
    public QueueFullException(String queue, int maxWaiting, String message) {
        super(message);
        this.queue = queue;
        this.maxWaiting = maxWaiting;
    }

    /** The queue's name. */
    public String queue() {
        return queue;
    }

    /** The queue's bound on waiting and delayed jobs. */
    public int maxWaiting() {
        return maxWaiting;
    }
}
