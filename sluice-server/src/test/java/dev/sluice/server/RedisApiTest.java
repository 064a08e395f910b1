package dev.sluice.server;

import dev.sluice.Sluice;

/** The API on the Redis engine, each test under a key prefix of its own. */
class RedisApiTest extends ApiContract {
    @Override
    Sluice newEngine() {
        return RedisEngines.fresh("api");
    }
}
