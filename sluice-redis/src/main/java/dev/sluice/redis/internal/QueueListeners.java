package dev.sluice.redis.internal;

import dev.sluice.queue.QueueListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners this process added to one Redis queue, each with the number of the last event before it was added
 * (it hears those after it): while there are any, the queue's events are read from Redis ({@link QueueEvents#hold}).
 * What a listener throws is logged, and the queue goes on.
 */
final class QueueListeners<T> {
    /** The log of {@link RedisJobQueue}, whose listeners these are. */
    private static final Logger LOG = LoggerFactory.getLogger(RedisJobQueue.class);

    private final RedisJobQueue<T> queue;
    private final QueueEvents<T> events;
    private final List<Listening<T>> all = new CopyOnWriteArrayList<>();

    QueueListeners(RedisJobQueue<T> queue, QueueEvents<T> events) {
        this.queue = queue;
        this.events = events;
    }

    /** Whether there are any. */
    boolean any() {
        return !all.isEmpty();
    }

    /**
     * Adds {@code listener}; from now on it hears the events of every process, which this process reads from Redis
     * while it has listeners.
     *
     * @throws dev.sluice.SluiceException if Redis cannot be reached to start listening (the listener is not added)
     */
    void add(QueueListener<T> listener) {
        Listening<T> added = new Listening<>(listener);
        all.add(added);
        try {
            added.after = events.hold(true);
        } catch (RuntimeException e) {
            all.remove(added);
            throw e;
        }
    }

    /** Removes {@code listener}, compared by identity; whether it was there. */
    boolean remove(QueueListener<T> listener) {
        for (Listening<T> l : all) {
            if (l.listener == listener && all.remove(l)) {
                events.release();
                return true;
            }
        }
        return false;
    }

    /** A listener, and the number of the last event before it was added: it hears the events after it. */
    private static final class Listening<T> {
        final QueueListener<T> listener;
        volatile long after = Long.MAX_VALUE;

        Listening(QueueListener<T> listener) {
            this.listener = listener;
        }
    }

    /** Tells every listener added before event {@code number} happened. */
    void tell(Consumer<QueueListener<T>> event, long number) {
        for (Listening<T> l : all) {
            if (number > l.after) {
                tell(l.listener, event);
            }
        }
    }

    /** Tells every listener how many of the events {@code from} to {@code through} it missed. */
    void tellMissed(long from, long through) {
        for (Listening<T> l : all) {
            long count = through - Math.max(from - 1, l.after);
            if (count > 0) {
                tell(l.listener, listener -> listener.onEventsMissed(count));
            }
        }
    }

    private void tell(QueueListener<T> listener, Consumer<QueueListener<T>> event) {
        try {
            event.accept(listener);
        } catch (Throwable e) {
            LOG.warn("a listener of {} threw; the queue goes on", queue, e);
        }
    }
}
