package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.Clock;
import dev.sluice.time.ManualClock;

/** The rate limiter contract, run against the in-memory engine. */
class InMemoryRateLimiterContractTest extends RateLimiterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return Sluice.inMemory(clock);
    }

    @Override
    protected Sluice newEngine(Clock clock) {
        return Sluice.inMemory(clock);
    }
}
