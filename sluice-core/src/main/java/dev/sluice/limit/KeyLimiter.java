package dev.sluice.limit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One key of a {@link RateLimiter}, bound for repeated use: a global limit, or a tenant the caller serves
 * for a while. It shares the key's permits with every other caller of the limiter and the same key, and
 * decides exactly as the limiter would; it only skips looking the key up on each call.
 *
 * <p>Obtained from {@link RateLimiter#forKey(String)}. Thread-safe.
 */
public interface KeyLimiter {
    /** The limiter this key belongs to. */
    RateLimiter limiter();

    /** The key. */
    String key();

    /**
     * As {@link RateLimiter#tryAcquire(Object, long) limiter().tryAcquire(key(), permits)}.
     *
     * @throws IllegalArgumentException if permits is out of range
     */
    Decision tryAcquire(long permits);

    /** {@link #tryAcquire(long) tryAcquire(1)}. */
    default Decision tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * As {@link RateLimiter#tryConsume(String, long) limiter().tryConsume(key(), permits)}.
     *
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the policy is a {@link ConcurrencyLimit}
     */
    boolean tryConsume(long permits);

    /** {@link #tryConsume(long) tryConsume(1)}. */
    default boolean tryConsume() {
        return tryConsume(1);
    }

    /**
     * As {@link RateLimiter#acquire(Object, long, Duration) limiter().acquire(key(), permits, timeout)}.
     *
     * @throws IllegalArgumentException if permits is out of range or the timeout negative
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    Decision acquire(long permits, Duration timeout) throws InterruptedException;

    /**
     * As {@link RateLimiter#acquireAsync(Object, long, Duration) limiter().acquireAsync(key(), permits,
     * timeout)}.
     *
     * @throws IllegalArgumentException if permits is out of range or the timeout negative
     */
    CompletableFuture<Decision> acquireAsync(long permits, Duration timeout);
}
