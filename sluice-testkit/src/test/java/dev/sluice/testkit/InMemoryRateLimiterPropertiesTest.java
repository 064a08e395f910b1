package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.SluiceClock;

/** The rate limiter properties, checked against the in-memory engine. */
class InMemoryRateLimiterPropertiesTest extends RateLimiterProperties {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return Sluice.inMemory(clock);
    }
}
