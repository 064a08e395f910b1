package dev.sluice.micrometer;

import dev.sluice.time.SluiceClock;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * One read of what several gauges show, made only when the registry reads a gauge: never per event. A scrape reads
 * the gauges one after another, so one read serves each of them once, within {@link #MAX_AGE_NANOS}: the values of a
 * scrape come from one instant (one round trip on a shared engine), and the next scrape, or a read of a gauge already
 * served, reads afresh. A read that fails (the engine's server unreachable, or the engine closed), or that finds
 * nothing to show (null), shows as NaN.
 *
 * @param <V> what is read
 */
final class ScrapeRead<V> {
    /** How long one read may serve the other gauges, on the engine's clock: one second. */
    static final long MAX_AGE_NANOS = 1_000_000_000L;

    private final Supplier<V> read;
    private final SluiceClock clock;
    private V value;
    private boolean fresh;
    private long readAt;
    /** The gauges served from {@link #value}, one bit each. */
    private int served;

    /** Reads {@code read}, timing its age on {@code clock}. */
    ScrapeRead(Supplier<V> read, SluiceClock clock) {
        this.read = read;
        this.clock = clock;
    }

    /** What gauge number {@code gauge} (0 to 31) shows: {@code of} the value read, read afresh as said above. */
    synchronized double value(int gauge, ToDoubleFunction<V> of) {
        int bit = 1 << gauge;
        long now = clock.nanos();
        if (!fresh || (served & bit) != 0 || now - readAt >= MAX_AGE_NANOS) {
            served = 0;
            readAt = now;
            try {
                value = read.get();
                fresh = true;
            } catch (RuntimeException e) {
                fresh = false;
                return Double.NaN;
            }
        }
        served |= bit;
        return value == null ? Double.NaN : of.applyAsDouble(value);
    }
}
