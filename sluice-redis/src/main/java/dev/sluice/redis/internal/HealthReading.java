package dev.sluice.redis.internal;

import dev.sluice.redis.RedisHealth;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** One reading of {@link RedisHealth}: a {@code PING}, timed, then {@code INFO} and {@code DBSIZE}. */
public final class HealthReading {
    private HealthReading() {}

    /** Reads the health of the Redis {@code engine} uses. */
    public static RedisHealth of(RedisEngine engine) {
        Connection c = engine.connection;
        long start = System.nanoTime();
        engine.await(c.keys.ping());
        Duration roundTrip = Duration.ofNanos(System.nanoTime() - start);
        Map<String, String> info = fields(engine.await(c.server.info("everything")));
        long keys = engine.await(c.server.dbsize());
        return new RedisHealth(
                info.getOrDefault("redis_version", "unknown"),
                info.getOrDefault("role", "unknown"),
                number(info, "used_memory"),
                number(info, "maxmemory"),
                info.getOrDefault("maxmemory_policy", "unknown"),
                number(info, "connected_clients"),
                number(info, "evicted_keys"),
                keys,
                roundTrip);
    }

    /** The {@code name:value} lines of an {@code INFO} reply. */
    static Map<String, String> fields(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }

    private static long number(Map<String, String> info, String name) {
        try {
            return Long.parseLong(info.getOrDefault(name, "0"));
        } catch (NumberFormatException notWhole) {
            return 0;
        }
    }
}
