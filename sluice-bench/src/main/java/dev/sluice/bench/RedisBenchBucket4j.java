package dev.sluice.bench;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;

/**
 * Bucket4j's Lettuce backend ({@code LettuceBasedProxyManager}, compare-and-swap based): one proxy per key, built
 * once, and its synchronous {@code tryConsume(1)}.
 *
 * <p>Configured as Bucket4j's documentation suggests for Redis: state expires once the bucket would be full
 * again plus {@link #KEEP_AFTER_REFILL}. Bucket4j takes the time from this JVM's clock (its default), where
 * Sluice's script reads the Redis server's.
 */
final class RedisBenchBucket4j implements RedisBenchContender {
    /** How long Bucket4j keeps a bucket after it would be full again, as in its documentation's example. */
    static final Duration KEEP_AFTER_REFILL = Duration.ofSeconds(10);

    private final StatefulRedisConnection<String, byte[]> connection;
    private final ProxyManager<String> proxies;
    private final String keyPrefix;
    private final BucketConfiguration configuration;

    /**
     * @param keyPrefix the start of every Redis key it writes
     * @param capacity tokens in a full bucket, refilled greedily at {@code capacity} per {@code period}
     */
    RedisBenchBucket4j(RedisClient client, String keyPrefix, long capacity, Duration period) {
        this.keyPrefix = keyPrefix;
        this.connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
        this.proxies = Bucket4jLettuce.casBasedBuilder(connection)
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(KEEP_AFTER_REFILL))
                .build();
        this.configuration = BucketConfiguration.builder()
                .addLimit(Bandwidth.builder()
                        .capacity(capacity)
                        .refillGreedy(capacity, period)
                        .build())
                .build();
    }

    @Override
    public String id() {
        return "bucket4j";
    }

    @Override
    public String description() {
        return "Bucket4j " + RedisLimiterBench.BUCKET4J_VERSION + " Lettuce backend: Bucket4jLettuce.casBasedBuilder("
                + "StatefulRedisConnection<String, byte[]>), expirationAfterWrite(basedOnTimeForRefillingBucketUpToMax("
                + KEEP_AFTER_REFILL.toSeconds() + " s)); one BucketProxy per key, tryConsume(1)";
    }

    @Override
    public Decider decider(String set, String[] keys) {
        BucketProxy[] buckets = new BucketProxy[keys.length];
        for (int i = 0; i < keys.length; i++) {
            buckets[i] = proxies.builder().build(keyPrefix + ":" + set + ":" + keys[i], () -> configuration);
        }
        return keyIndex -> buckets[keyIndex].tryConsume(1);
    }

    @Override
    public void close() {
        connection.close();
    }
}
