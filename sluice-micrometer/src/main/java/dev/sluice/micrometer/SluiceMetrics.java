package dev.sluice.micrometer;

import dev.sluice.Sluice;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;

/**
 * Micrometer meters for every limiter and queue of one engine: those it holds when bound and those opened later,
 * on any engine (in memory, Redis). One call binds everything:
 *
 * <pre>{@code
 * SluiceMetrics metrics = SluiceMetrics.bind(sluice, registry);
 * ...
 * metrics.close(); // removes the listeners and the meters
 * }</pre>
 *
 * or, where a framework binds {@link MeterBinder}s itself, {@code SluiceMetrics.of(sluice, options)}. The meters
 * are listed in {@link MeterNames} and in the README's "Metrics" table.
 *
 * <p>It listens through {@link Sluice#addListener} for the limiters' decisions and for each limiter and queue,
 * and adds a {@link dev.sluice.queue.QueueMetrics} to each queue, which the engine tells of the changes this process
 * makes: on a shared engine (Redis) each process counts its own adds and its own workers' attempts, so a sum over
 * instances counts each job once, and binding reads nothing more from the server and makes it write nothing more.
 * Waits are measured by the engine's clock from when a job was ready, whichever process made it ready. Gauges of
 * job counts read the queue when the registry reads them, never per event; they are the whole queue's, the same in
 * every process. A limiter's decisions are this process's own.
 *
 * <p>Thread-safe. Bind an engine once per registry: a second binding of the same engine to the same registry
 * shares its meters, and closing one removes them for both. Close it before or after the engine; meters of a
 * closed engine's queues read NaN until then.
 */
public final class SluiceMetrics implements MeterBinder, AutoCloseable {
    private final Sluice sluice;
    private final MetricsOptions options;
    private final List<Binding> bindings = new ArrayList<>();
    private boolean closed;

    private SluiceMetrics(Sluice sluice, MetricsOptions options) {
        this.sluice = sluice;
        this.options = options;
    }

    /**
     * A binder of {@code sluice}'s meters with default options, bound to no registry yet.
     *
     * @param sluice the engine
     * @return the binder
     * @throws IllegalArgumentException if {@code sluice} is null
     */
    public static SluiceMetrics of(Sluice sluice) {
        return of(sluice, MetricsOptions.defaults());
    }

    /**
     * A binder of {@code sluice}'s meters, bound to no registry yet: {@link #bindTo} binds it.
     *
     * @param sluice the engine
     * @param options percentiles, groups and tags
     * @return the binder
     * @throws IllegalArgumentException if an argument is null
     */
    public static SluiceMetrics of(Sluice sluice, MetricsOptions options) {
        if (sluice == null) {
            throw new IllegalArgumentException("sluice must not be null");
        }
        if (options == null) {
            throw new IllegalArgumentException("options must not be null; use MetricsOptions.defaults()");
        }
        return new SluiceMetrics(sluice, options);
    }

    /**
     * Binds {@code sluice}'s meters to {@code registry} with default options.
     *
     * @param sluice the engine
     * @param registry the registry
     * @return the binding, to close when done
     * @throws IllegalArgumentException if an argument is null
     * @throws IllegalStateException if the engine is closed
     * @throws dev.sluice.SluiceException if a shared engine's server cannot be reached to listen to a queue
     */
    public static SluiceMetrics bind(Sluice sluice, MeterRegistry registry) {
        return bind(sluice, registry, MetricsOptions.defaults());
    }

    /**
     * Binds {@code sluice}'s meters to {@code registry}.
     *
     * @param sluice the engine
     * @param registry the registry
     * @param options percentiles, groups and tags
     * @return the binding, to close when done
     * @throws IllegalArgumentException if an argument is null
     * @throws IllegalStateException if the engine is closed
     */
    public static SluiceMetrics bind(Sluice sluice, MeterRegistry registry, MetricsOptions options) {
        SluiceMetrics metrics = of(sluice, options);
        metrics.bindTo(registry);
        return metrics;
    }

    /**
     * Registers the meters of every limiter and queue of the engine in {@code registry}, and of each one opened
     * later, until {@link #close()}. May be called for several registries.
     *
     * @param registry the registry
     * @throws IllegalArgumentException if {@code registry} is null
     * @throws IllegalStateException if this binder or the engine is closed
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        Binding binding = new Binding(sluice, registry, options);
        bindings.add(binding);
        try {
            binding.start();
        } catch (RuntimeException e) {
            bindings.remove(binding);
            binding.close();
            throw e;
        }
    }

    /**
     * The options it meters with.
     *
     * @return the options
     */
    public MetricsOptions options() {
        return options;
    }

    /**
     * Stops listening to the engine and its queues and removes every meter it registered from every registry.
     * Idempotent; works whether or not the engine is closed.
     */
    @Override
    public synchronized void close() {
        closed = true;
        bindings.forEach(Binding::close);
        bindings.clear();
    }

    @Override
    public String toString() {
        return "SluiceMetrics[" + sluice + "]";
    }
}
