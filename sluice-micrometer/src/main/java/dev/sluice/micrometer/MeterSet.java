package dev.sluice.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The meters one part of a binding registered, so that they can all be removed from the registry; once {@link
 * #removeAll() removed}, a meter registered through it is removed at once (an event that raced the close).
 */
final class MeterSet {
    private final MeterRegistry registry;
    private final MetricsOptions options;
    private final List<Meter> meters = new ArrayList<>();
    private boolean removed;

    MeterSet(MeterRegistry registry, MetricsOptions options) {
        this.registry = registry;
        this.options = options;
    }

    Counter counter(String name, Tags tags) {
        return keep(Counter.builder(name)
                .description(MeterNames.description(name))
                .tags(options.tags().and(tags))
                .register(registry));
    }

    /** A timer with the options' percentiles and histogram. */
    Timer timer(String name, Tags tags) {
        return keep(Timer.builder(name)
                .description(MeterNames.description(name))
                .tags(options.tags().and(tags))
                .publishPercentiles(options.percentiles())
                .publishPercentileHistogram(options.percentileHistogram())
                .register(registry));
    }

    /** A gauge of {@code value} applied to {@code source}, which the gauge holds on to. */
    <S> Gauge gauge(String name, Tags tags, S source, ToDoubleFunction<S> value) {
        return keep(Gauge.builder(name, source, value)
                .description(MeterNames.description(name))
                .tags(options.tags().and(tags))
                .strongReference(true)
                .register(registry));
    }

    private synchronized <M extends Meter> M keep(M meter) {
        if (removed) {
            registry.remove(meter);
        } else {
            meters.add(meter);
        }
        return meter;
    }

    /** Removes every meter registered through this set from the registry, and any registered later. */
    synchronized void removeAll() {
        removed = true;
        meters.forEach(registry::remove);
        meters.clear();
    }

    /** {@code duration}, recorded on {@code timer} unless it is negative (clocks of two machines). */
    static void record(Timer timer, Duration duration) {
        if (!duration.isNegative()) {
            timer.record(duration);
        }
    }
}
