package dev.sluice.redis.internal;

import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;

/**
 * What {@link dev.sluice.redis.RedisSluice.Builder} gathered; exactly one of the four connections is set. {@code
 * waitReplicas} is 0, and {@code waitTimeout} null, when adds and endings do not wait for replicas. {@code
 * connectInBackground}: the engine is built without waiting for Redis, and connects once it can.
 */
public record RedisSettings(
        String url,
        List<String> clusterUrls,
        RedisClient client,
        RedisClusterClient clusterClient,
        String keyPrefix,
        Duration commandTimeout,
        Duration retryInterval,
        SluiceClock clock,
        SluiceClock scriptClock,
        boolean redisFunctions,
        int waitReplicas,
        Duration waitTimeout,
        int eventLogSize,
        boolean connectInBackground) {}
