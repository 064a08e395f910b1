package dev.sluice.server;

import dev.sluice.Sluice;

/** Access control on the Redis engine, each test under a key prefix of its own. */
class RedisAccessTest extends AccessContract {
    @Override
    Sluice newEngine() {
        return RedisEngines.fresh("access");
    }
}
