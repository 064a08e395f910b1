package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.RateLimiterContract;
import dev.sluice.time.SluiceClock;

/** The whole rate limiter contract against a real Redis. */
class RedisRateLimiterContractTest extends RateLimiterContract {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return TestEngines.on(clock);
    }
}
