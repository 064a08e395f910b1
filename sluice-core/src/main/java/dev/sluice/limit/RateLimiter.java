package dev.sluice.limit;

/**
 * A named limit applied to every key separately: each tenant, endpoint or client address has its own
 * permits under the same {@link LimitPolicy}.
 *
 * <p>Obtained from an engine ({@link dev.sluice.Sluice#limiter}). Thread-safe.
 */
public interface RateLimiter extends Limiter<String> {
    /** The longest key accepted, in characters. */
    int MAX_KEY_LENGTH = 512;

    /**
     * Takes {@code permits} for {@code key} if the limit allows it now, answering only whether it did. The
     * same decision as {@link #tryAcquire(Object, long) tryAcquire}, without building a {@link Decision}:
     * the form for hot paths that need only the yes or no.
     *
     * @throws IllegalArgumentException as {@link #tryAcquire(Object, long) tryAcquire}
     * @throws IllegalStateException if the policy is a {@link ConcurrencyLimit}, whose permits are leases
     *     that only a {@link Decision} can release
     */
    boolean tryConsume(String key, long permits);

    /** {@link #tryConsume(String, long) tryConsume(key, 1)}. */
    default boolean tryConsume(String key) {
        return tryConsume(key, 1);
    }

    /**
     * The given key of this limiter, bound for repeated use without looking the key up on each call.
     *
     * @throws IllegalArgumentException if the key is null, empty or too long
     */
    KeyLimiter forKey(String key);

    /** The limiter's name, unique within its engine. */
    String name();

    /** The policy in force. */
    LimitPolicy policy();

    /** The options the limiter was created with. */
    LimiterOptions options();

    /**
     * Replaces the policy. The new limit applies from now on; what keys have already taken is kept
     * (a bucket that had 3 of 10 permits used has 3 used under the new policy too). The change is not atomic
     * with respect to concurrent requests: while it re-expresses each tracked key's state, which takes about
     * as long as a pass over the keys, a request to a key not yet re-expressed can be decided by the new
     * policy on the old state, more loosely or more strictly than either policy would. Where that matters,
     * change limits at quiet moments.
     *
     * @throws IllegalArgumentException if {@code policy} is null or of another kind than the current one
     */
    void updatePolicy(LimitPolicy policy);
}
