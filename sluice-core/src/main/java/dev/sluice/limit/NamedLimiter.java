package dev.sluice.limit;

/**
 * A named limit of an engine applied to every key separately: a {@link RateLimiter} (how often permits may be
 * taken) or a {@link ConcurrencyLimiter} (how many may be held at once). What both kinds have: their name, policy
 * and options, and a key's state read without taking anything or put back at its full limit.
 *
 * <p>A name belongs to one limiter of one kind within an engine. Thread-safe. Every method throws {@link
 * IllegalStateException} once the engine is closed.
 */
public sealed interface NamedLimiter extends Limiter<String> permits RateLimiter, ConcurrencyLimiter {
    /** The longest key accepted, in characters. */
    int MAX_KEY_LENGTH = 512;

    /**
     * The decision {@link #tryAcquire(Object, long) tryAcquire(key, permits)} would give now, taking nothing:
     * the same allowed, remaining, retry-after and reset-at, with {@link Lease#none()}. {@code remaining} is what
     * would be left after taking {@code permits}; nothing is told to the {@link LimiterListener}. A concurrent
     * request can change the answer the moment after: to take permits, call {@code tryAcquire}.
     *
     * @param key the key
     * @param permits how many permits the request would cost, from 1 to the policy's limit
     * @return the decision a request would get now
     * @throws IllegalArgumentException if the key is null, empty or too long, or permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    Decision peek(String key, long permits);

    /**
     * The whole permits {@code key} could take at once now, from 0 to the policy's limit, taking nothing.
     *
     * @param key the key
     * @return the permits available now
     * @throws IllegalArgumentException if the key is null, empty or too long
     * @throws IllegalStateException if the engine is closed
     */
    default long available(String key) {
        Decision one = peek(key, 1);
        return one.allowed() ? one.remaining() + 1 : one.remaining();
    }

    /**
     * Puts {@code key} back at its full limit, as a key never seen: everything it took is forgotten (for a
     * {@link ConcurrencyLimiter}, every lease of the key is dropped, and releasing one afterwards returns false).
     * On the in-memory engine, a key that has no state of its own because the key table is full of busy keys
     * (it is decided against the shared overflow, see {@link LimiterOptions}) is left as it is: resetting the
     * overflow would reset every other key in it.
     *
     * @param key the key
     * @throws IllegalArgumentException if the key is null, empty or too long
     * @throws IllegalStateException if the engine is closed
     */
    void reset(String key);

    /**
     * The limiter's name, unique within its engine across both kinds of limiter.
     *
     * @return the name
     */
    String name();

    /**
     * The policy in force.
     *
     * @return the policy
     */
    LimitPolicy policy();

    /**
     * The options the limiter was created with.
     *
     * @return the options
     */
    LimiterOptions options();
}
