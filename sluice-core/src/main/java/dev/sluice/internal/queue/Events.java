package dev.sluice.internal.queue;

import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A batch of events recorded in one critical section, told to the listeners once the lock is released, and the
 * changes to tell the queue's metrics of.
 */
final class Events<T> extends ArrayList<Consumer<QueueListener<T>>> {
    private static final long serialVersionUID = 1L;

    /** Whether some listener hears the events: if not, none need be recorded (only metrics are told). */
    final boolean listened;

    /** Whether some metrics are told of the changes: if not, none need be recorded. */
    private final boolean metered;

    private transient List<Consumer<QueueMetrics>> measured;

    /** The listeners when its changes were made: of them, those still added when it is told hear it. */
    transient QueueListener<T>[] audience;

    Events(boolean listened, boolean metered) {
        this.listened = listened;
        this.metered = metered;
    }

    /** Whether {@code events} is a batch that listeners hear. */
    static boolean listened(Events<?> events) {
        return events != null && events.listened;
    }

    /** Whether {@code events} is a batch whose changes metrics are told of. */
    static boolean metered(Events<?> events) {
        return events != null && events.metered;
    }

    /** Records a change to tell the metrics of, if {@code events} is a batch that metrics are told of. */
    static void measure(Events<?> events, Consumer<QueueMetrics> change) {
        if (metered(events)) {
            if (events.measured == null) {
                events.measured = new ArrayList<>(2);
            }
            events.measured.add(change);
        }
    }

    /** Tells {@code metrics} the changes recorded. */
    void tell(MetricsSet metrics) {
        if (measured != null) {
            for (Consumer<QueueMetrics> change : measured) {
                metrics.tell(change);
            }
        }
    }
}
