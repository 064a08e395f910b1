package dev.sluice.limit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Something that grants or denies permits for a key: a {@link RateLimiter}, or a {@link LimitChain} of
 * them.
 *
 * <p>Implementations are thread-safe.
 *
 * @param <K> what a request is identified by: a string key for a limiter, any context for a chain
 */
public interface Limiter<K> {

    /**
     * Takes {@code permits} for {@code key} if the limit allows it now, without waiting.
     *
     * @param key the key, such as a tenant id or client address
     * @param permits how many permits the request costs, from 1 to the policy's {@link LimitPolicy#limit()}
     * @return the decision; a denial is a normal result, not an exception
     * @throws IllegalArgumentException if the key is null, empty or too long, or permits is out of range
     */
    Decision tryAcquire(K key, long permits);

    /** {@link #tryAcquire(Object, long) tryAcquire(key, 1)}. */
    default Decision tryAcquire(K key) {
        return tryAcquire(key, 1);
    }

    /**
     * Takes {@code permits} for {@code key}, waiting up to {@code timeout} for them. Gives up at once, with
     * the denial, when the wait the limiter reports exceeds what is left of the timeout.
     *
     * @return an allowed decision, or the denial that made it give up
     * @throws IllegalArgumentException as {@link #tryAcquire(Object, long)}, or if the timeout is negative
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    Decision acquire(K key, long permits, Duration timeout) throws InterruptedException;

    /**
     * As {@link #acquire(Object, long, Duration)}, without blocking the calling thread.
     *
     * @return a future completed with an allowed decision, or with the denial that made it give up
     * @throws IllegalArgumentException as {@link #acquire(Object, long, Duration)}
     */
    CompletableFuture<Decision> acquireAsync(K key, long permits, Duration timeout);
}
