package dev.sluice.limit;

/**
 * A policy of how often permits may be taken: every policy but {@link ConcurrencyLimit}, which bounds how many are
 * held at once. A queue's rate and a group's rate take a {@code RatePolicy}, so a concurrency limit given as a rate
 * does not compile: a queue has a concurrency of its own. A {@link RateLimiter} applies a rate policy (any but an
 * {@link AdaptiveRate}, which is for queues and groups); a concurrency limit is a {@link ConcurrencyLimiter}'s.
 */
public sealed interface RatePolicy extends LimitPolicy
        permits TokenBucket, Gcra, FixedWindow, SlidingWindowCounter, SlidingWindowLog, AdaptiveRate {
    /**
     * The sustained rate: how many permits per second the policy grants over a long time (a burst aside).
     *
     * @return permits per second; for an {@link AdaptiveRate}, its ceiling's
     */
    default double perSecond() {
        return switch (this) {
            case TokenBucket b -> b.refillTokens() * 1e9 / b.refillPeriod().toNanos();
            case Gcra g -> g.rate() * 1e9 / g.period().toNanos();
            case FixedWindow w -> w.limit() * 1e9 / w.window().toNanos();
            case SlidingWindowCounter w -> w.limit() * 1e9 / w.window().toNanos();
            case SlidingWindowLog w -> w.limit() * 1e9 / w.window().toNanos();
            case AdaptiveRate a -> a.ceiling().perSecond();
        };
    }
}
