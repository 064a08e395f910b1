package dev.sluice.server;

import dev.sluice.Sluice;
import java.time.Duration;

/**
 * Workers in other languages on the Redis engine, each test under a key prefix of its own. The engine's clock is the
 * system's, so a lease runs out in real time: those tests use a short lease and wait for its end with a deadline.
 */
class RedisRemoteWorkerTest extends RemoteWorkerApiContract {
    @Override
    Sluice newEngine() {
        return RedisEngines.fresh("remote");
    }

    @Override
    void elapse(Duration time) {
        // real time passes by itself; the test waits for what it brings
    }

    @Override
    long shortLeaseMs() {
        return 3_000;
    }
}
