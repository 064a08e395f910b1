package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.ManualClock;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis engines for sluice-http's tests, in this package for the test-only script clock: one client to the test kit's shared server, and a fresh key prefix per engine. */
public final class HttpTestEngines {
    private static final AtomicLong PREFIXES = new AtomicLong();
    private static RedisClient client;

    private HttpTestEngines() {}

    private static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(RedisServer.shared().uri());
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown));
        }
        return client;
    }

    /** An empty engine whose scripts take their time from {@code clock}. */
    public static Sluice on(ManualClock clock) {
        return RedisSluice.builder()
                .client(client())
                .keyPrefix("http" + PREFIXES.incrementAndGet() + "-" + System.nanoTime())
                .commandTimeout(Duration.ofSeconds(30))
                .scriptClock(clock)
                .build();
    }
}
