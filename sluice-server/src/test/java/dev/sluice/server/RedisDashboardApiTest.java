package dev.sluice.server;

import dev.sluice.Sluice;

/** The dashboard's routes on the Redis engine, each test under a key prefix of its own. */
class RedisDashboardApiTest extends DashboardApiContract {
    @Override
    Sluice newEngine() {
        return RedisEngines.fresh("dash");
    }
}
