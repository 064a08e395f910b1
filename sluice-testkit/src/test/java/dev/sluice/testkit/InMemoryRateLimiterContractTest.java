package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.Clock;

/** The rate limiter contract, run against the in-memory engine. */
class InMemoryRateLimiterContractTest extends RateLimiterContract {
    @Override
    protected Sluice newEngine(Clock clock) {
        return Sluice.inMemory(clock);
    }
}
