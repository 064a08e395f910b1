package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.RateLimiterProperties;
import dev.sluice.time.SluiceClock;

/** The rate limiter properties (random histories against reference models), against a real Redis. */
class RedisRateLimiterPropertiesTest extends RateLimiterProperties {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return TestEngines.on(clock);
    }
}
