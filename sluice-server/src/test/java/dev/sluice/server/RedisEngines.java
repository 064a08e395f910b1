package dev.sluice.server;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.util.concurrent.atomic.AtomicLong;

/** Engines on the test kit's shared Redis, each under a key prefix of its own. */
final class RedisEngines {
    private static final AtomicLong PREFIXES = new AtomicLong();

    private RedisEngines() {}

    /** A new engine whose keys start with {@code label}, this JVM's pid and a number no other engine had. */
    static Sluice fresh(String label) {
        return RedisSluice.builder()
                .url(RedisServer.shared().uri())
                .keyPrefix(label + ProcessHandle.current().pid() + "-" + PREFIXES.incrementAndGet())
                .build();
    }
}
