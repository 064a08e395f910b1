package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.redis.RedisHealth;
import dev.sluice.redis.RedisSluice;
import java.util.Arrays;
import java.util.List;

/**
 * The dashboard's {@code redis} section, on an engine on Redis: {@link RedisHealth}'s figures, the 99th percentile of
 * the round trips of the last {@value #KEPT_ROUND_TRIPS} readings (one per snapshot), and its warnings joined as the
 * section's {@code warning}.
 */
public final class RedisSection implements EngineSection {
    static final int KEPT_ROUND_TRIPS = 100;

    private final Sluice sluice;
    private final long[] roundTripNanos = new long[KEPT_ROUND_TRIPS];
    private int readings;

    /**
     * The engine sections of {@code sluice}: the JVM's, and Redis's when {@code sluice-redis} is on the class path and
     * the engine is on Redis.
     */
    public static List<EngineSection> of(Sluice sluice) {
        boolean redisPresent;
        try {
            Class.forName("dev.sluice.redis.RedisSluice", false, RedisSection.class.getClassLoader());
            redisPresent = true;
        } catch (ClassNotFoundException | LinkageError absent) {
            redisPresent = false;
        }
        return redisPresent && RedisSluice.isRedis(sluice)
                ? List.of(new JvmSection(), new RedisSection(sluice))
                : List.of(new JvmSection());
    }

    /** The section of {@code sluice}, an engine {@link RedisSluice} built. */
    public RedisSection(Sluice sluice) {
        this.sluice = sluice;
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public ObjectNode read() {
        RedisHealth health = RedisSluice.health(sluice);
        roundTripNanos[readings % KEPT_ROUND_TRIPS] = health.roundTrip().toNanos();
        readings++;
        ObjectNode node = JsonNodeFactory.instance
                .objectNode()
                .put("version", health.version())
                .put("role", health.role())
                .put("usedMemoryBytes", health.usedMemoryBytes())
                .put("maxMemoryBytes", health.maxMemoryBytes())
                .put("maxMemoryPolicy", health.maxMemoryPolicy())
                .put("connectedClients", health.connectedClients())
                .put("evictedKeys", health.evictedKeys())
                .put("keys", health.keys())
                .put("roundTripMs", health.roundTrip().toNanos() / 1e6)
                .put("roundTripP99Ms", p99Nanos() / 1e6);
        if (!health.warnings().isEmpty()) {
            node.put("warning", String.join("; ", health.warnings()));
        }
        return node;
    }

    /** The 99th percentile of the kept round trips (nearest rank). */
    long p99Nanos() {
        int kept = Math.min(readings, KEPT_ROUND_TRIPS);
        long[] sorted = Arrays.copyOf(roundTripNanos, kept);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(0.99 * kept);
        return sorted[Math.max(rank - 1, 0)];
    }
}
