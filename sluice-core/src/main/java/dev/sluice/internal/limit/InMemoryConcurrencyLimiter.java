package dev.sluice.internal.limit;

import dev.sluice.limit.ConcurrencyKeyLimiter;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimiterOptions;

/** A concurrency limiter whose keys live in this JVM. */
final class InMemoryConcurrencyLimiter extends InMemoryLimiter<ConcurrencyLimit> implements ConcurrencyLimiter {
    InMemoryConcurrencyLimiter(InMemoryLimiters owner, String name, ConcurrencyLimit policy, LimiterOptions options) {
        super(owner, name, policy, options);
    }

    @Override
    public ConcurrencyKeyLimiter forKey(String key) {
        owner.checkOpen();
        return Limits.bind(this, key);
    }
}
