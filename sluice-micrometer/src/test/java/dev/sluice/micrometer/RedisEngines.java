package dev.sluice.micrometer;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Redis engines on the test kit's shared server, each on keys of its own. */
final class RedisEngines {
    private static final AtomicLong PREFIXES = new AtomicLong();
    private static RedisClient client;

    private RedisEngines() {}

    private static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(RedisServer.shared().uri());
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown));
        }
        return client;
    }

    /** An empty engine; its command timeout is long, so that a loaded machine does not look like an outage. */
    static Sluice newEngine() {
        return newEngine(newPrefix());
    }

    /** A key prefix no other engine of this JVM has. */
    static String newPrefix() {
        return "metrics" + PREFIXES.incrementAndGet();
    }

    /** An engine on the keys of {@code prefix}: engines made with one prefix stand for processes sharing Redis. */
    static Sluice newEngine(String prefix) {
        return RedisSluice.builder()
                .client(client())
                .keyPrefix(prefix)
                .commandTimeout(Duration.ofSeconds(30))
                .build();
    }
}
