package dev.sluice.jackson;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** The JSON queue contract on the Redis engine: the test kit's shared redis-server, keys of its own per test. */
class RedisJsonQueueTest extends JsonQueueContract {
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    @Override
    protected Sluice newEngine() {
        return RedisSluice.builder()
                .url(RedisServer.shared().uri())
                .keyPrefix("jackson" + PREFIXES.incrementAndGet())
                .commandTimeout(Duration.ofSeconds(30))
                .build();
    }
}
