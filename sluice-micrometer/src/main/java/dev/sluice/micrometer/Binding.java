package dev.sluice.micrometer;

import dev.sluice.EngineListener;
import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.Decision;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.queue.JobQueue;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One engine bound to one registry: the engine listener that makes each limiter's and queue's meters and feeds
 * the limiters' ones; each queue feeds its meters through the {@link dev.sluice.queue.QueueMetrics} added to it.
 */
final class Binding implements EngineListener {
    private final Sluice sluice;
    private final MeterRegistry registry;
    private final MetricsOptions options;
    private final MeterSet meters;
    private final ConcurrentHashMap<String, LimiterMeters> limiters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<JobQueue<?>, QueueMeters> queues = new ConcurrentHashMap<>();
    private volatile boolean closed;

    Binding(Sluice sluice, MeterRegistry registry, MetricsOptions options) {
        this.sluice = sluice;
        this.registry = registry;
        this.options = options;
        this.meters = new MeterSet(registry, options);
    }

    /** Starts listening: the engine tells this binding of every limiter and queue it holds, and of later ones. */
    void start() {
        sluice.addListener(this);
    }

    /**
     * The meters of limiter {@code name}, made at its first event: a decision of a limiter that existed before
     * this binding may come before the engine tells of the limiter itself.
     */
    private LimiterMeters limiter(String name) {
        LimiterMeters known = limiters.get(name);
        return known != null ? known : limiters.computeIfAbsent(name, n -> new LimiterMeters(meters, n));
    }

    @Override
    public void onLimiterOpened(NamedLimiter limiter) {
        limiter(limiter.name());
    }

    @Override
    public void onQueueOpened(JobQueue<?> queue) {
        open(queue);
    }

    private void open(JobQueue<?> queue) {
        if (closed || queues.containsKey(queue)) {
            return;
        }
        QueueMeters queueMeters = new QueueMeters(queue, registry, options, sluice.clock());
        try {
            queue.addMetrics(queueMeters);
        } catch (RuntimeException e) {
            queueMeters.remove();
            throw e;
        }
        queues.put(queue, queueMeters);
        if (closed) {
            stop(queue, queueMeters);
        }
    }

    @Override
    public void onAllowed(String limiter, String key, long permits, Decision decision) {
        limiter(limiter).decided(decision);
    }

    @Override
    public void onDenied(String limiter, String key, long permits, Decision decision) {
        limiter(limiter).decided(decision);
    }

    @Override
    public void onEvicted(String limiter, String key) {
        limiter(limiter).evicted();
    }

    @Override
    public void onKeyTableFull(String limiter, String key) {
        limiter(limiter).overflowed();
    }

    @Override
    public void onUnavailable(String limiter, Throwable cause) {
        limiter(limiter).unavailable();
    }

    @Override
    public void onRecovered(String limiter) {
        limiter(limiter).recovered();
    }

    /**
     * Stops listening and removes every meter from the registry. An engine closed already has dropped its
     * listeners itself.
     */
    void close() {
        closed = true;
        try {
            sluice.removeListener(this);
        } catch (IllegalStateException engineClosed) {
            // the engine dropped every listener when it closed
        }
        queues.forEach(this::stop);
        queues.clear();
        meters.removeAll();
    }

    private void stop(JobQueue<?> queue, QueueMeters queueMeters) {
        try {
            queue.removeMetrics(queueMeters);
        } catch (IllegalStateException | SluiceException engineGone) {
            // a closed engine refuses the call, and has dropped its queues' metrics
        }
        queueMeters.remove();
    }

    @Override
    public String toString() {
        return "SluiceMetrics of " + sluice + " on " + registry.getClass().getSimpleName();
    }
}
