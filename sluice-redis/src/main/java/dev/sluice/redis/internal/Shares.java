package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.limit.Scaled;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.RatePolicy;

/** A policy's share: what one process may take on its own while the shared limit is out of reach. */
final class Shares {
    private Shares() {}

    /**
     * {@code policy} with its limit and rate multiplied by {@code share} (0 to 1), rounded down but never
     * below one permit, so that processes together stay within the whole limit.
     */
    static LimitPolicy scale(LimitPolicy policy, double share) {
        if (share == 1) {
            return policy;
        }
        return switch (policy) {
            case AdaptiveRate adaptive -> throw Limits.adaptiveRefused("a limiter", adaptive);
            case RatePolicy rate -> Scaled.rate(rate, share);
            case ConcurrencyLimit concurrency ->
                new ConcurrencyLimit(Scaled.part(concurrency.maxConcurrent(), share), concurrency.leaseTimeout());
        };
    }
}
