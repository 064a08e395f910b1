package dev.sluice.internal.queue;

import dev.sluice.queue.QueueListener;
import java.util.ArrayList;
import java.util.function.Consumer;

/** A batch of events recorded in one critical section, told to the listeners once the lock is released. */
final class Events<T> extends ArrayList<Consumer<QueueListener<T>>> {
    private static final long serialVersionUID = 1L;
}
