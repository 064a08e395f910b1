package dev.sluice.server;

import dev.sluice.Sluice;

/** The limits over HTTP on the Redis engine, each test under a key prefix of its own. */
class RedisLimiterApiTest extends LimiterApiContract {
    @Override
    Sluice newEngine() {
        return RedisEngines.fresh("limits");
    }
}
