package dev.sluice.limit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One key of a {@link ConcurrencyLimiter}, bound for repeated use. It shares the key's permits with every other
 * caller of the limiter and the same key, and decides exactly as the limiter would.
 *
 * <p>Obtained from {@link ConcurrencyLimiter#forKey(String)}. Thread-safe. Every method throws {@link
 * IllegalStateException} once the engine is closed.
 */
public interface ConcurrencyKeyLimiter {
    /**
     * The limiter this key belongs to.
     *
     * @return the limiter
     */
    ConcurrencyLimiter limiter();

    /**
     * The key.
     *
     * @return the key
     */
    String key();

    /**
     * As {@link ConcurrencyLimiter#tryAcquire(Object, long) limiter().tryAcquire(key(), permits)}.
     *
     * @param permits how many permits to hold, from 1 to the policy's limit
     * @return the decision, holding a lease when allowed
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    default Decision tryAcquire(long permits) {
        return limiter().tryAcquire(key(), permits);
    }

    /**
     * {@link #tryAcquire(long) tryAcquire(1)}.
     *
     * @return the decision, holding a lease when allowed
     * @throws IllegalStateException if the engine is closed
     */
    default Decision tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * As {@link ConcurrencyLimiter#tryAcquireAsync(Object, long) limiter().tryAcquireAsync(key(), permits)}.
     *
     * @param permits how many permits to hold, from 1 to the policy's limit
     * @return a future completed with the decision
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    default CompletableFuture<Decision> tryAcquireAsync(long permits) {
        return limiter().tryAcquireAsync(key(), permits);
    }

    /**
     * As {@link ConcurrencyLimiter#acquire(Object, long, Duration) limiter().acquire(key(), permits, timeout)}.
     *
     * @param permits how many permits to hold, from 1 to the policy's limit
     * @param timeout how long to wait at most, zero or positive
     * @return an allowed decision holding a lease, or the denial that made it give up
     * @throws IllegalArgumentException if permits is out of range or the timeout negative
     * @throws IllegalStateException if the engine is closed
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    default Decision acquire(long permits, Duration timeout) throws InterruptedException {
        return limiter().acquire(key(), permits, timeout);
    }

    /**
     * As {@link ConcurrencyLimiter#acquireAsync(Object, long, Duration) limiter().acquireAsync(key(), permits,
     * timeout)}.
     *
     * @param permits how many permits to hold, from 1 to the policy's limit
     * @param timeout how long to wait at most, zero or positive
     * @return a future completed with an allowed decision holding a lease, or with the denial that made it give up
     * @throws IllegalArgumentException if permits is out of range or the timeout negative
     * @throws IllegalStateException if the engine is closed
     */
    default CompletableFuture<Decision> acquireAsync(long permits, Duration timeout) {
        return limiter().acquireAsync(key(), permits, timeout);
    }

    /**
     * As {@link ConcurrencyLimiter#peek(String, long) limiter().peek(key(), permits)}.
     *
     * @param permits how many permits a request would hold, from 1 to the policy's limit
     * @return the decision a request would get now
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    default Decision peek(long permits) {
        return limiter().peek(key(), permits);
    }

    /**
     * As {@link ConcurrencyLimiter#available(String) limiter().available(key())}: the permits not held now.
     *
     * @return the permits available now
     * @throws IllegalStateException if the engine is closed
     */
    default long available() {
        return limiter().available(key());
    }

    /**
     * As {@link ConcurrencyLimiter#reset(String) limiter().reset(key())}.
     *
     * @throws IllegalStateException if the engine is closed
     */
    default void reset() {
        limiter().reset(key());
    }
}
