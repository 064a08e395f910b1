package dev.sluice.limit;

/**
 * A named limit of how often permits may be taken, applied to every key separately: each tenant, endpoint or
 * client address has its own permits under the same {@link RatePolicy}.
 *
 * <p>Besides taking permits, a rate limiter can read a key's state without taking anything ({@link #peek}, {@link
 * #available}), give permits back ({@link #refund}) and put a key back at its full limit ({@link #reset}); each
 * is exact and, on a shared engine, one atomic round trip. How many permits may be held at once is a {@link
 * ConcurrencyLimiter}'s.
 *
 * <p>Obtained from an engine ({@link dev.sluice.Sluice#limiter}). Thread-safe. Every method throws {@link
 * IllegalStateException} once the engine is closed.
 */
public non-sealed interface RateLimiter extends NamedLimiter {
    /**
     * Takes {@code permits} for {@code key} if the limit allows it now, answering only whether it did. The
     * same decision as {@link #tryAcquire(Object, long) tryAcquire}, without building a {@link Decision}:
     * the form for hot paths that need only the yes or no.
     *
     * @param key the key
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @return whether the permits were taken
     * @throws IllegalArgumentException as {@link #tryAcquire(Object, long) tryAcquire}
     * @throws IllegalStateException if the engine is closed
     */
    boolean tryConsume(String key, long permits);

    /**
     * {@link #tryConsume(String, long) tryConsume(key, 1)}.
     *
     * @param key the key
     * @return whether the permit was taken
     * @throws IllegalArgumentException if the key is null, empty or too long
     * @throws IllegalStateException if the engine is closed
     */
    default boolean tryConsume(String key) {
        return tryConsume(key, 1);
    }

    /**
     * Gives {@code permits} back to {@code key}, as if that many of the permits it took had not been taken;
     * never beyond the key's full limit, so a refund of permits never taken gives nothing. By policy:
     *
     * <ul>
     *   <li>{@link TokenBucket} and {@link Gcra}: the bucket gains {@code permits} tokens, up to its capacity
     *       (the time it is full again moves {@code permits} emission intervals earlier, not before now);
     *   <li>{@link FixedWindow}: the current window's count goes down by {@code permits}, not below zero;
     *       permits of earlier windows have come back already;
     *   <li>{@link SlidingWindowCounter}: the current window's count goes down by {@code permits}; what is left
     *       of the refund comes off the previous window's count; neither goes below zero;
     *   <li>{@link SlidingWindowLog}: the latest grants still in the window are forgotten, newest first, until
     *       {@code permits} permits are.
     * </ul>
     *
     * On the in-memory engine a key decided against the shared overflow (see {@link LimiterOptions}) gets the
     * permits back in the overflow, which is where it took them.
     *
     * @param key the key
     * @param permits how many permits to give back, from 1 to the policy's limit
     * @throws IllegalArgumentException as {@link #tryAcquire(Object, long) tryAcquire}
     * @throws IllegalStateException if the engine is closed
     */
    void refund(String key, long permits);

    /**
     * The given key of this limiter, bound for repeated use without looking the key up on each call.
     *
     * @param key the key
     * @return the bound key
     * @throws IllegalArgumentException if the key is null, empty or too long
     * @throws IllegalStateException if the engine is closed
     */
    KeyLimiter forKey(String key);

    /**
     * The policy in force.
     *
     * @return the policy
     */
    @Override
    RatePolicy policy();

    /**
     * Replaces the policy. The new limit applies from now on; what keys have already taken is kept
     * (a bucket that had 3 of 10 permits used has 3 used under the new policy too). The change is not atomic
     * with respect to concurrent requests: while it re-expresses each tracked key's state, which takes about
     * as long as a pass over the keys, a request to a key not yet re-expressed can be decided by the new
     * policy on the old state, more loosely or more strictly than either policy would. Where that matters,
     * change limits at quiet moments.
     *
     * @param policy the new policy, of the same kind as the current one (a {@link TokenBucket} for a {@link
     *     TokenBucket}, and so on)
     * @throws IllegalArgumentException if {@code policy} is null or of another kind than the current one
     * @throws IllegalStateException if the engine is closed
     */
    void setPolicy(RatePolicy policy);
}
