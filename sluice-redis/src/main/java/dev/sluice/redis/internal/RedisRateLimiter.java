package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;

/** A rate limiter whose keys live in Redis. */
final class RedisRateLimiter extends RedisLimiter<RatePolicy> implements RateLimiter {
    RedisRateLimiter(RedisEngine engine, String name, RatePolicy policy, LimiterOptions options) {
        super(engine, name, policy, options);
    }

    @Override
    public boolean tryConsume(String key, long permits) {
        LimitPolicy current = checked(key, permits);
        Decision decision = decide(LimitScript.ACQUIRE, layerOf(key, current), current, key, permits)
                .decision();
        tell(key, permits, decision);
        return decision.allowed();
    }

    @Override
    public void refund(String key, long permits) {
        LimitPolicy current = checked(key, permits);
        LimitScript.Layer layer = layerOf(key, current);
        if (!change(layer, args(LimitScript.REFUND, layer, permits)) && falling()) {
            ((RateLimiter) fallback(current)).refund(key, permits);
        }
    }

    @Override
    public KeyLimiter forKey(String key) {
        engine.checkOpen();
        return Limits.bind(this, key);
    }
}
