package dev.sluice.http;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A fresh engine on a manual clock for each test, and limiters with names of their own; subclassed per engine. */
public abstract class EngineFixture {
    protected ManualClock clock;
    protected Sluice sluice;
    private int limiters;

    /** A new, empty engine on {@code clock}. */
    protected abstract Sluice newEngine(ManualClock clock);

    @BeforeEach
    void openEngine() {
        clock = new ManualClock();
        sluice = newEngine(clock);
    }

    @AfterEach
    void closeEngine() {
        sluice.close();
    }

    /** A new rate limiter of the engine with {@code policy}. */
    protected RateLimiter limiter(RatePolicy policy) {
        return sluice.limiter("limiter" + ++limiters, policy);
    }

    /** A new concurrency limiter of the engine with {@code policy}. */
    protected ConcurrencyLimiter limiter(ConcurrencyLimit policy) {
        return sluice.concurrencyLimiter("limiter" + ++limiters, policy);
    }
}
