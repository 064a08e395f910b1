package dev.sluice.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one reading of Redis's {@code INFO} says about the server an engine uses: the figures an operator checks
 * before trusting it with queues ({@link RedisSluice#health}).
 *
 * @param version the server's version, such as {@code 7.0.15}
 * @param role {@code master} or {@code slave}, as Redis names them
 * @param usedMemoryBytes memory Redis holds for data
 * @param maxMemoryBytes its {@code maxmemory}; 0 when unbounded
 * @param maxMemoryPolicy its {@code maxmemory-policy}; anything but {@code noeviction} may evict a queue's keys
 * @param connectedClients clients connected now
 * @param evictedKeys keys evicted since the server started
 * @param keys keys in the engine's database
 * @param roundTrip how long one {@code PING} took from this process
 */
public record RedisHealth(
        String version,
        String role,
        long usedMemoryBytes,
        long maxMemoryBytes,
        String maxMemoryPolicy,
        long connectedClients,
        long evictedKeys,
        long keys,
        Duration roundTrip) {
    /** The share of {@code maxmemory} above which {@link #warnings()} warns: 90%. */
    public static final double MEMORY_WARNING_SHARE = 0.9;

    /**
     * What an operator should act on, each a sentence: an evicting {@code maxmemory-policy}, memory near its bound,
     * evictions that happened.
     *
     * @return the warnings; empty when there is nothing to act on
     */
    public List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        if (!"noeviction".equals(maxMemoryPolicy)) {
            warnings.add("maxmemory-policy is " + maxMemoryPolicy
                    + ": Redis may evict a queue's keys when memory runs out; set it to noeviction");
        }
        if (maxMemoryBytes > 0 && usedMemoryBytes > MEMORY_WARNING_SHARE * maxMemoryBytes) {
            warnings.add("Redis uses " + usedMemoryBytes + " of its " + maxMemoryBytes + " bytes of maxmemory");
        }
        if (evictedKeys > 0) {
            warnings.add("Redis has evicted " + evictedKeys + " keys since it started");
        }
        return warnings;
    }
}
