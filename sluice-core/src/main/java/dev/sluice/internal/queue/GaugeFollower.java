package dev.sluice.internal.queue;

import dev.sluice.time.SluiceClock;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one gauge a queue follows ({@code JobQueue.followGauge}) once a second on the engine's clock and tells the
 * engine what it read: a value, or, once, that it cannot read it (the rate then holds until it reads again). Says
 * each change between the two in one log line, not one per failed read.
 */
final class GaugeFollower {
    /** How often a gauge is read. */
    static final long EVERY_NANOS = 1_000_000_000L;

    private static final Logger LOG = LoggerFactory.getLogger(GaugeFollower.class);

    private final String queue;
    private final String name;
    private final double threshold;
    private final DoubleSupplier reading;
    private final SluiceClock clock;
    private final QueueAdmin admin;
    private final BooleanSupplier closed;
    private volatile boolean stopped;
    private volatile SluiceClock.Timer timer;
    private boolean stale;

    GaugeFollower(
            String queue,
            String name,
            double threshold,
            DoubleSupplier reading,
            SluiceClock clock,
            QueueAdmin admin,
            BooleanSupplier closed) {
        this.queue = queue;
        this.name = name;
        this.threshold = threshold;
        this.reading = reading;
        this.clock = clock;
        this.admin = admin;
        this.closed = closed;
    }

    /** Reads now, then once a second until {@link #stop()} or the queue closes. */
    void start() {
        tick();
    }

    void stop() {
        stopped = true;
        SluiceClock.Timer scheduled = timer;
        if (scheduled != null) {
            scheduled.cancel();
        }
    }

    private synchronized void tick() {
        if (stopped || closed.getAsBoolean()) {
            return;
        }
        double value;
        String failure = "it read NaN";
        try {
            value = reading.getAsDouble();
        } catch (RuntimeException e) {
            value = Double.NaN;
            failure = e.toString();
        }
        try {
            if (Double.isNaN(value)) {
                if (!stale) {
                    LOG.warn(
                            "gauge '{}' of queue '{}' cannot be read ({}); its adaptive rate holds until it reads again",
                            name,
                            queue,
                            failure);
                    admin.gaugeStale(name);
                    stale = true;
                }
            } else {
                if (stale) {
                    LOG.info("gauge '{}' of queue '{}' reads again", name, queue);
                    stale = false;
                }
                // an infinite reading is told as the largest finite one, which every engine's rule takes
                admin.gauge(name, Math.max(-Double.MAX_VALUE, Math.min(Double.MAX_VALUE, value)), threshold);
            }
        } catch (RuntimeException e) {
            LOG.debug("telling queue '{}' of gauge '{}' failed; it reads again in a second", queue, name, e);
        }
        if (!stopped) {
            timer = clock.schedule(EVERY_NANOS, this::tick);
        }
    }
}
