package dev.sluice.limit;

/**
 * An immutable description of a limit: how many permits a key may take, and how they come back.
 *
 * <p>A policy holds no state; a {@link RateLimiter} applies it to each of its keys. The same policy gives
 * the same decisions on every engine.
 */
public sealed interface LimitPolicy
        permits TokenBucket, Gcra, FixedWindow, SlidingWindowCounter, SlidingWindowLog, ConcurrencyLimit {

    /**
     * The most permits one key can hold at once; a request for more is refused with an error.
     *
     * @return the limit, at least 1
     */
    long limit();
}
