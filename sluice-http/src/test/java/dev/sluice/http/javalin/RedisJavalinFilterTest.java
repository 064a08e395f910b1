package dev.sluice.http.javalin;

import dev.sluice.Sluice;
import dev.sluice.redis.HttpTestEngines;
import dev.sluice.time.ManualClock;

class RedisJavalinFilterTest extends JavalinFilterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return HttpTestEngines.on(clock);
    }
}
