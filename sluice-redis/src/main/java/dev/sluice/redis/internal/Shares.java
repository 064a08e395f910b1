package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;

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
            case TokenBucket bucket ->
                new TokenBucket(
                        part(bucket.capacity(), share), bucket.refillTokens(), stretch(bucket.refillPeriod(), share));
            case Gcra gcra -> new Gcra(gcra.rate(), stretch(gcra.period(), share), part(gcra.burst(), share));
            case FixedWindow window -> new FixedWindow(part(window.limit(), share), window.window());
            case SlidingWindowCounter window -> new SlidingWindowCounter(part(window.limit(), share), window.window());
            case SlidingWindowLog log -> new SlidingWindowLog(part(log.limit(), share), log.window());
            case ConcurrencyLimit concurrency ->
                new ConcurrencyLimit(part(concurrency.maxConcurrent(), share), concurrency.leaseTimeout());
            case AdaptiveRate adaptive -> throw Limits.adaptiveRefused("a limiter", adaptive);
        };
    }

    private static long part(long permits, double share) {
        return Math.max(1, (long) Math.floor(permits * share));
    }

    /** The period over which the same tokens come back at {@code share} of the rate. */
    private static Duration stretch(Duration period, double share) {
        return Duration.ofNanos((long) Math.ceil(period.toNanos() / share));
    }
}
