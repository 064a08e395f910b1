package dev.sluice;

import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueListener;

/**
 * Hears a whole engine: the decisions of every limiter it holds, and each limiter and queue it holds, those
 * there when the listener is added as well as those opened later. It is the one place from which to observe
 * everything (metrics, audit), where a {@link LimiterListener} in each limiter's options or a {@link
 * QueueListener} on each queue would miss what is created later. Added with {@link Sluice#addListener}.
 *
 * <p>The {@link LimiterListener} methods hear every limiter made with {@link Sluice#limiter} or {@link Sluice#concurrencyLimiter}, as that
 * limiter's own listener does (same thread, same events, same arguments), after it. {@link #onLimiterOpened}
 * and {@link #onQueueOpened} are called once per limiter and per queue for each listener: for those the engine
 * holds when the listener is added, during {@code addListener}, and for each one created later, on the thread
 * that created it, before {@link Sluice#limiter} or {@link Sluice#concurrencyLimiter} or {@link Sluice#queue} returns it. They are called one at a
 * time for the whole engine, so keep them quick.
 *
 * <p>Every method does nothing by default. What a method throws changes nothing in the engine: it is logged
 * (SLF4J, at WARN the first time for a decision event, see {@link LimiterListener}) and the engine goes on.
 */
public interface EngineListener extends LimiterListener {
    /**
     * The listener that ignores everything.
     *
     * @return the listener, always the same instance
     */
    static EngineListener none() {
        return NoEngineListener.INSTANCE;
    }

    /**
     * The engine holds {@code limiter}: it existed when this listener was added, or was just created.
     *
     * @param limiter the limiter
     */
    default void onLimiterOpened(NamedLimiter limiter) {}

    /**
     * The engine holds {@code queue}: it was open when this listener was added, or was just opened for the
     * first time in this engine (on a shared engine, possibly created by another process before).
     *
     * @param queue the queue, typed by its codec
     */
    default void onQueueOpened(JobQueue<?> queue) {}
}
