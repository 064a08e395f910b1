package dev.sluice.http.servlet;

import dev.sluice.Sluice;
import dev.sluice.redis.HttpTestEngines;
import dev.sluice.time.ManualClock;

class RedisSluiceRateLimitFilterTest extends SluiceRateLimitFilterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return HttpTestEngines.on(clock);
    }
}
