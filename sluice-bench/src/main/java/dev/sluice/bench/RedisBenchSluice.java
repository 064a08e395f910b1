package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.redis.RedisSluice;
import io.lettuce.core.RedisClient;

/**
 * Sluice's Redis engine, built on the benchmark's {@link RedisClient} (the engine opens its own connection from
 * it): one limiter per key set, {@code tryConsume(key)}.
 */
final class RedisBenchSluice implements RedisBenchContender {
    private final Sluice sluice;
    private final RatePolicy policy;

    /**
     * @param keyPrefix the engine's key prefix
     * @param policy the policy of every limiter it makes
     */
    RedisBenchSluice(RedisClient client, String keyPrefix, RatePolicy policy) {
        this.policy = policy;
        // far above any latency of the run: a timed-out call would be answered without Redis
        this.sluice = RedisSluice.builder()
                .client(client)
                .keyPrefix(keyPrefix)
                .commandTimeout(RedisLimiterBench.CALL_TIMEOUT)
                .build();
    }

    /** The engine, for callers that make limiters of other policies on it. */
    Sluice sluice() {
        return sluice;
    }

    @Override
    public String id() {
        return "sluice";
    }

    @Override
    public String description() {
        return "RedisSluice.builder().client(redisClient).keyPrefix(...).commandTimeout("
                + RedisLimiterBench.CALL_TIMEOUT.toSeconds() + " s).build(); sluice.limiter(set, " + policy
                + "); tryConsume(key)";
    }

    @Override
    public Decider decider(String set, String[] keys) {
        RateLimiter limiter = sluice.limiter(set, policy);
        return keyIndex -> limiter.tryConsume(keys[keyIndex]);
    }

    @Override
    public void close() {
        sluice.close();
    }
}
