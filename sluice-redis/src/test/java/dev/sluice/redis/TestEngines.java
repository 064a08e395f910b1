package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis engines for tests: one client to the test kit's shared server, and a fresh key prefix per engine, so
 * engines never see each other's keys.
 */
final class TestEngines {
    private static final AtomicLong PREFIXES = new AtomicLong();
    private static RedisClient client;

    private TestEngines() {}

    /** A client to the shared test server, made once per JVM. */
    static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(RedisServer.shared().uri());
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown));
        }
        return client;
    }

    /**
     * An empty engine on {@code clock}: scripts take their time from it when it is a {@link ManualClock} (virtual
     * time), and from the Redis server otherwise.
     */
    static Sluice on(SluiceClock clock) {
        RedisSluice.Builder builder =
                RedisSluice.builder().client(client()).keyPrefix("t" + PREFIXES.incrementAndGet());
        return (clock instanceof ManualClock ? builder.scriptClock(clock) : builder.clock(clock)).build();
    }
}
