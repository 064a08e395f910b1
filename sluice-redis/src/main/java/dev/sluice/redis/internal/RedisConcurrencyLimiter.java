package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.limit.ConcurrencyKeyLimiter;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimiterOptions;

/** A concurrency limiter whose keys live in Redis. */
final class RedisConcurrencyLimiter extends RedisLimiter<ConcurrencyLimit> implements ConcurrencyLimiter {
    RedisConcurrencyLimiter(RedisEngine engine, String name, ConcurrencyLimit policy, LimiterOptions options) {
        super(engine, name, policy, options);
    }

    @Override
    public ConcurrencyKeyLimiter forKey(String key) {
        engine.checkOpen();
        return Limits.bind(this, key);
    }
}
