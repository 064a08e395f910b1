package dev.sluice.internal.queue;

import dev.sluice.queue.QueueListener;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue's listeners, and the events waiting to be told to them. Events are recorded under the queue's lock and
 * told after it is released, batch after batch in the order the changes happened, on the queue's {@link
 * DeliveryLane}: never by the thread that made the change. A listener that throws is logged and changes nothing
 * else.
 */
final class Listeners<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

    private final String queue;
    private final ReentrantLock lock;
    /** Signalled, under {@link #lock}, whenever a batch has been told. */
    private final Condition toldAll;
    /** Guarded by {@link #lock}. */
    private final ArrayDeque<Events<T>> outbox = new ArrayDeque<>();
    /** Guarded by {@link #lock}: how many batches were queued, and how many of them have been told. */
    private long queuedCount;

    private long toldCount;

    @SuppressWarnings("unchecked")
    private volatile QueueListener<T>[] listeners = new QueueListener[0];

    private final MetricsSet metrics;
    private final DeliveryLane lane;

    Listeners(String queue, ReentrantLock lock) {
        this.queue = queue;
        this.lock = lock;
        this.toldAll = lock.newCondition();
        this.metrics = new MetricsSet(queue);
        this.lane = new DeliveryLane("sluice-" + queue + "-listeners", this::drain);
    }

    MetricsSet metrics() {
        return metrics;
    }

    synchronized void add(QueueListener<T> listener) {
        QueueListener<T>[] now = listeners;
        QueueListener<T>[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = listener;
        listeners = next;
    }

    @SuppressWarnings("unchecked")
    synchronized boolean remove(QueueListener<T> listener) {
        QueueListener<T>[] now = listeners;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == listener) {
                QueueListener<T>[] next = (QueueListener<T>[]) new QueueListener[now.length - 1];
                System.arraycopy(now, 0, next, 0, i);
                System.arraycopy(now, i + 1, next, i, now.length - i - 1);
                listeners = next;
                return true;
            }
        }
        return false;
    }

    /**
     * Under the lock, right where a critical section starts to record events (and with no wait before the
     * lock is released): a batch for them, queued behind every earlier batch so listeners hear changes in the
     * order they happened. Null when nobody listens and no metrics are registered.
     */
    Events<T> batch() {
        boolean listened = listeners.length > 0;
        boolean metered = !metrics.isEmpty();
        if (!listened && !metered) {
            return null;
        }
        Events<T> batch = new Events<>(listened, metered);
        if (listened) {
            outbox.add(batch);
            queuedCount++;
            batch.audience = listeners;
        }
        return batch;
    }

    /**
     * After the lock is released: tells the metrics of the batch's changes now, and has the lane tell the listeners
     * the queued batches in order.
     */
    void fire(Events<T> events) {
        if (events == null) {
            return;
        }
        events.tell(metrics);
        if (events.listened) {
            lane.kick();
        }
    }

    /** On the lane: tells the queued batches in order, until none is left. */
    private void drain() {
        while (true) {
            Events<T> next;
            lock.lock();
            try {
                next = outbox.poll();
            } finally {
                lock.unlock();
            }
            if (next == null) {
                return;
            }
            try {
                deliver(next);
            } finally {
                lock.lock();
                try {
                    toldCount++;
                    toldAll.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** For the engine's close: waits for the listeners as {@link DeliveryLane#awaitOnClose} says. */
    void awaitToldOnClose() {
        lane.awaitOnClose(this::awaitTold);
    }

    /** Whether the calling thread is telling this queue's listeners now. */
    boolean onLane() {
        return lane.isLaneThread();
    }

    /**
     * Waits until the listeners have been told every batch queued before the call, or {@code nanos} have passed;
     * whether they have. Holding the lock, it sees only batches whose critical section has ended, fired or not: a
     * change is heard once it is made, not once its maker has come round to firing it (the maker may still be
     * between releasing the lock and firing when a caller that saw the change, through {@code awaitIdle} for one,
     * asks).
     *
     * @throws IllegalStateException if called by a listener (it would wait for itself)
     */
    boolean awaitTold(long nanos) throws InterruptedException {
        lane.refuseWaitOnLane("queue '" + queue + "'");
        lock.lock();
        try {
            long target = queuedCount;
            if (toldCount < target) {
                lane.kick();
            }
            long left = nanos;
            while (toldCount < target) {
                if (left <= 0) {
                    return false;
                }
                left = toldAll.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Tells the batch's events to the listeners that were added when its changes were made and still are: one added
     * since hears none of them, one removed since hears no more.
     */
    private void deliver(Events<T> batch) {
        for (Consumer<QueueListener<T>> event : batch) {
            for (QueueListener<T> listener : batch.audience) {
                if (!isAdded(listener)) {
                    continue;
                }
                try {
                    event.accept(listener);
                } catch (Throwable e) {
                    LOG.warn("listener {} of queue '{}' threw; the queue goes on", listener, queue, e);
                }
            }
        }
    }

    private boolean isAdded(QueueListener<T> listener) {
        for (QueueListener<T> added : listeners) {
            if (added == listener) {
                return true;
            }
        }
        return false;
    }
}
