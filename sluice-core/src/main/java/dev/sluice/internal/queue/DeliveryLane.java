package dev.sluice.internal.queue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread at a time on which a queue tells its listeners: a call that made events places them and {@link
 * #kick}s the lane, which runs the engine's drain (tell what is next in order) on a virtual thread of its own until
 * nothing more was placed. No caller runs a listener, and no caller waits for one; listeners of one queue are told
 * one event at a time, in the order the engine placed them.
 */
public final class DeliveryLane {
    private static final Logger LOG = LoggerFactory.getLogger(DeliveryLane.class);

    /** The longest an engine's close waits for a queue's listeners to hear the changes made before it. */
    public static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final int IDLE = 0;
    private static final int RUNNING = 1;
    /** Running, and kicked since the drain began: it drains once more before it stops. */
    private static final int AGAIN = 2;

    private final String name;
    private final Runnable drain;
    private final AtomicInteger state = new AtomicInteger(IDLE);
    private volatile Thread runner;

    /**
     * @param name the thread's name
     * @param drain tells what is placed and next in order, and returns when it has told all it may now; it must not
     *     throw (what it throws is logged, and the lane goes on)
     */
    public DeliveryLane(String name, Runnable drain) {
        this.name = name;
        this.drain = drain;
    }

    /** Makes the lane drain soon: starts its thread if none runs, or has the running one drain once more. */
    public void kick() {
        while (true) {
            int now = state.get();
            if (now == AGAIN || (now == RUNNING && state.compareAndSet(RUNNING, AGAIN))) {
                return;
            }
            if (now == IDLE && state.compareAndSet(IDLE, RUNNING)) {
                Thread.ofVirtual().name(name).start(this::run);
                return;
            }
        }
    }

    /** Whether the calling thread is the lane's: a listener, told now. */
    public boolean isLaneThread() {
        return runner == Thread.currentThread();
    }

    /**
     * Refuses a wait for the listeners made on the lane's own thread: a listener would wait for itself.
     *
     * @param queue the queue, as the message names it
     * @throws IllegalStateException if the calling thread is the lane's
     */
    public void refuseWaitOnLane(String queue) {
        if (isLaneThread()) {
            throw new IllegalStateException(
                    "awaitListeners was called by a listener of " + queue + ", which would wait for itself");
        }
    }

    /** How an engine waits for its listeners: up to the nanoseconds given; whether they heard everything. */
    @FunctionalInterface
    public interface Wait {
        /**
         * @param nanos the longest wait
         * @return whether the listeners heard everything in time
         * @throws InterruptedException if interrupted while waiting
         */
        boolean await(long nanos) throws InterruptedException;
    }

    /**
     * For an engine's close: {@code wait}s up to {@link #CLOSE_WAIT_NANOS}, unless a listener closes the engine (it
     * would wait for itself); an interrupt ends the wait and is kept for the caller.
     */
    public void awaitOnClose(Wait wait) {
        if (isLaneThread()) {
            return;
        }
        try {
            wait.await(CLOSE_WAIT_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        Thread current = Thread.currentThread();
        do {
            state.set(RUNNING);
            runner = current;
            try {
                drain.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("{}: telling listeners failed; the queue goes on", name, e);
            } finally {
                runner = null; // before the lane may go idle: no thread the next kick starts is named then
            }
        } while (!state.compareAndSet(RUNNING, IDLE));
    }
}
