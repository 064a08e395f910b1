package dev.sluice.limit;

import java.time.Duration;

/**
 * An immutable description of a limit: how many permits a key may take, and how they come back.
 *
 * <p>A policy holds no state; a {@link RateLimiter} (for a {@link RatePolicy}) or a
 * {@link ConcurrencyLimiter} (for a {@link ConcurrencyLimit}) applies it to each of its keys. The same policy gives
 * the same decisions on every engine.
 */
public sealed interface LimitPolicy permits RatePolicy, ConcurrencyLimit {

    /**
     * The longest span of time a policy may describe (a window, twice a sliding counter's window, the time a bucket
     * takes to refill, a lease timeout): 2^52 ns, about 52 days, the longest every engine computes exactly (Redis's
     * scripts compute in doubles). A policy describing a longer one cannot be made, on any engine.
     */
    Duration MAX_SPAN = Duration.ofNanos(1L << 52);

    /** The most permits a policy may hold for one key (a bucket's capacity, a window's limit, a burst): 10^12. */
    long MAX_PERMITS = 1_000_000_000_000L;

    /**
     * The most permits one key can hold at once; a request for more is refused with an error.
     *
     * @return the limit, at least 1
     */
    long limit();
}
