package dev.sluice.internal.queue;

import dev.sluice.queue.QueueListener;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue's listeners, and the events waiting to be told to them. Events are recorded under the queue's lock
 * and delivered after it is released, batch after batch in the order the changes happened, by one thread at a
 * time. A listener that throws is logged and changes nothing else.
 */
final class Listeners<T> {
    private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

    private final String queue;
    private final ReentrantLock lock;
    /** Guarded by {@link #lock}. */
    private final ArrayDeque<Events<T>> outbox = new ArrayDeque<>();
    /** Guarded by {@link #lock}. */
    private boolean delivering;

    @SuppressWarnings("unchecked")
    private volatile QueueListener<T>[] listeners = new QueueListener[0];

    private final MetricsSet metrics;

    Listeners(String queue, ReentrantLock lock) {
        this.queue = queue;
        this.lock = lock;
        this.metrics = new MetricsSet(queue);
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
        }
        return batch;
    }

    /**
     * After the lock is released: delivers the queued batches in order, unless another thread is delivering
     * (it delivers this batch too).
     */
    void fire(Events<T> events) {
        if (events == null) {
            return;
        }
        events.tell(metrics);
        if (!events.listened) {
            return;
        }
        while (true) {
            Events<T> next;
            lock.lock();
            try {
                if (delivering || (next = outbox.poll()) == null) {
                    return;
                }
                delivering = true;
            } finally {
                lock.unlock();
            }
            try {
                deliver(next);
            } finally {
                lock.lock();
                try {
                    delivering = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    private void deliver(Events<T> batch) {
        for (Consumer<QueueListener<T>> event : batch) {
            for (QueueListener<T> listener : listeners) {
                try {
                    event.accept(listener);
                } catch (Throwable e) {
                    LOG.warn("listener {} of queue '{}' threw; the queue goes on", listener, queue, e);
                }
            }
        }
    }
}
