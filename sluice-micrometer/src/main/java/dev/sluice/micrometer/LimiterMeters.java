package dev.sluice.micrometer;

import dev.sluice.limit.Decision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The meters of one limiter. The decision counters of the normal basis are registered at once, so that a rate
 * starts from zero; those of a degraded basis when the first such decision comes.
 */
final class LimiterMeters {
    private static final Decision.Basis[] BASES = Decision.Basis.values();

    private final MeterSet meters;
    private final Tags tags;
    /** Indexed by {@link #index}: allowed then denied, for each basis. */
    private final AtomicReferenceArray<Counter> decisions = new AtomicReferenceArray<>(2 * BASES.length);

    private final Counter outages;
    private final Counter evicted;
    private final Counter overflowed;
    private final AtomicInteger unavailable = new AtomicInteger();

    LimiterMeters(MeterSet meters, String limiter) {
        this.meters = meters;
        this.tags = Tags.of(MeterNames.LIMITER, limiter);
        decisions(true, Decision.Basis.LIMIT);
        decisions(false, Decision.Basis.LIMIT);
        this.outages = meters.counter(MeterNames.LIMITER_OUTAGES, tags);
        this.evicted = meters.counter(MeterNames.LIMITER_KEYS_EVICTED, tags);
        this.overflowed = meters.counter(MeterNames.LIMITER_KEYS_OVERFLOWED, tags);
        meters.gauge(MeterNames.LIMITER_UNAVAILABLE, tags, unavailable, AtomicInteger::get);
    }

    void decided(Decision decision) {
        decisions(decision.allowed(), decision.basis()).increment();
    }

    private Counter decisions(boolean allowed, Decision.Basis basis) {
        int index = 2 * basis.ordinal() + (allowed ? 0 : 1);
        Counter counter = decisions.get(index);
        if (counter == null) {
            counter = meters.counter(
                    MeterNames.LIMITER_DECISIONS,
                    tags.and(
                            MeterNames.OUTCOME,
                            allowed ? "allowed" : "denied",
                            MeterNames.BASIS,
                            basis.name().toLowerCase(Locale.ROOT)));
            decisions.compareAndSet(index, null, counter);
        }
        return counter;
    }

    void unavailable() {
        outages.increment();
        unavailable.set(1);
    }

    void recovered() {
        unavailable.set(0);
    }

    void evicted() {
        evicted.increment();
    }

    void overflowed() {
        overflowed.increment();
    }
}
