package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.RateLimiterContract;
import dev.sluice.time.SluiceClock;
import java.time.Duration;

/** The whole rate limiter contract against a real Redis. */
class RedisRateLimiterContractTest extends RateLimiterContract {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return TestEngines.on(clock);
    }

    /** Scripts compute in doubles, exact to 2^53: spans are bounded by 2^52 ns, about 52 days. */
    @Override
    protected Duration longestWindow() {
        return Duration.ofNanos(1L << 52);
    }
}
