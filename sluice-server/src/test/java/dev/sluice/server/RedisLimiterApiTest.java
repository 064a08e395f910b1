package dev.sluice.server;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.util.concurrent.atomic.AtomicLong;

/** The limits over HTTP on the Redis engine, each test under a key prefix of its own. */
class RedisLimiterApiTest extends LimiterApiContract {
    private static final AtomicLong PREFIXES = new AtomicLong();

    @Override
    Sluice newEngine() {
        return RedisSluice.builder()
                .url(RedisServer.shared().uri())
                .keyPrefix("limits" + ProcessHandle.current().pid() + "-" + PREFIXES.incrementAndGet())
                .build();
    }
}
