package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.Clock;

/** The rate limiter properties, checked against the in-memory engine. */
class InMemoryRateLimiterPropertiesTest extends RateLimiterProperties {
    @Override
    protected Sluice newEngine(Clock clock) {
        return Sluice.inMemory(clock);
    }
}
