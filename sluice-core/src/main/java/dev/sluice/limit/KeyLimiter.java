package dev.sluice.limit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One key of a {@link RateLimiter}, bound for repeated use: a global limit, or a tenant the caller serves
 * for a while. It shares the key's permits with every other caller of the limiter and the same key, and
 * decides exactly as the limiter would; it only skips looking the key up on each call.
 *
 * <p>Obtained from {@link RateLimiter#forKey(String)}. Thread-safe. Every method throws {@link
 * IllegalStateException} once the engine is closed.
 */
public interface KeyLimiter {
    /**
     * The limiter this key belongs to.
     *
     * @return the limiter
     */
    RateLimiter limiter();

    /**
     * The key.
     *
     * @return the key
     */
    String key();

    /**
     * As {@link RateLimiter#tryAcquire(Object, long) limiter().tryAcquire(key(), permits)}.
     *
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @return the decision
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    Decision tryAcquire(long permits);

    /**
     * {@link #tryAcquire(long) tryAcquire(1)}.
     *
     * @return the decision
     * @throws IllegalStateException if the engine is closed
     */
    default Decision tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * As {@link RateLimiter#tryAcquireAsync(Object, long) limiter().tryAcquireAsync(key(), permits)}.
     *
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @return a future completed with the decision
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    default CompletableFuture<Decision> tryAcquireAsync(long permits) {
        return limiter().tryAcquireAsync(key(), permits);
    }

    /**
     * As {@link RateLimiter#tryConsume(String, long) limiter().tryConsume(key(), permits)}.
     *
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @return whether the permits were taken
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    boolean tryConsume(long permits);

    /**
     * {@link #tryConsume(long) tryConsume(1)}.
     *
     * @return whether the permit was taken
     * @throws IllegalStateException if the engine is closed
     */
    default boolean tryConsume() {
        return tryConsume(1);
    }

    /**
     * As {@link RateLimiter#peek(String, long) limiter().peek(key(), permits)}.
     *
     * @param permits how many permits the request would cost, from 1 to the policy's limit
     * @return the decision a request would get now
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    default Decision peek(long permits) {
        return limiter().peek(key(), permits);
    }

    /**
     * As {@link RateLimiter#available(String) limiter().available(key())}.
     *
     * @return the permits available now
     * @throws IllegalStateException if the engine is closed
     */
    default long available() {
        return limiter().available(key());
    }

    /**
     * As {@link RateLimiter#refund(String, long) limiter().refund(key(), permits)}.
     *
     * @param permits how many permits to give back, from 1 to the policy's limit
     * @throws IllegalArgumentException if permits is out of range
     * @throws IllegalStateException if the engine is closed
     */
    default void refund(long permits) {
        limiter().refund(key(), permits);
    }

    /**
     * As {@link RateLimiter#reset(String) limiter().reset(key())}.
     *
     * @throws IllegalStateException if the engine is closed
     */
    default void reset() {
        limiter().reset(key());
    }

    /**
     * As {@link RateLimiter#acquire(Object, long, Duration) limiter().acquire(key(), permits, timeout)}.
     *
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @param timeout how long to wait at most, zero or positive
     * @return an allowed decision, or the denial that made it give up
     * @throws IllegalArgumentException if permits is out of range or the timeout negative
     * @throws IllegalStateException if the engine is closed
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    default Decision acquire(long permits, Duration timeout) throws InterruptedException {
        return limiter().acquire(key(), permits, timeout);
    }

    /**
     * As {@link RateLimiter#acquireAsync(Object, long, Duration) limiter().acquireAsync(key(), permits,
     * timeout)}.
     *
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @param timeout how long to wait at most, zero or positive
     * @return a future completed with an allowed decision, or with the denial that made it give up
     * @throws IllegalArgumentException if permits is out of range or the timeout negative
     * @throws IllegalStateException if the engine is closed
     */
    default CompletableFuture<Decision> acquireAsync(long permits, Duration timeout) {
        return limiter().acquireAsync(key(), permits, timeout);
    }
}
