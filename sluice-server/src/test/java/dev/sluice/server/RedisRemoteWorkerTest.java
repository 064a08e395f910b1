package dev.sluice.server;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Workers in other languages on the Redis engine, each test under a key prefix of its own. The engine's clock is the
 * system's, so a lease runs out in real time: those tests use a short lease and wait for its end with a deadline.
 */
class RedisRemoteWorkerTest extends RemoteWorkerApiContract {
    private static final AtomicLong PREFIXES = new AtomicLong();

    @Override
    Sluice newEngine() {
        return RedisSluice.builder()
                .url(RedisServer.shared().uri())
                .keyPrefix("remote" + ProcessHandle.current().pid() + "-" + PREFIXES.incrementAndGet())
                .build();
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
