package dev.sluice.limit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Something that grants or denies permits for a key: a {@link RateLimiter}, a {@link ConcurrencyLimiter}, or a
 * {@link LimitChain} of them.
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
     * @throws IllegalStateException if the engine is closed
     */
    Decision tryAcquire(K key, long permits);

    /**
     * {@link #tryAcquire(Object, long) tryAcquire(key, 1)}.
     *
     * @param key the key
     * @return the decision
     * @throws IllegalArgumentException if the key is null, empty or too long
     * @throws IllegalStateException if the engine is closed
     */
    default Decision tryAcquire(K key) {
        return tryAcquire(key, 1);
    }

    /**
     * As {@link #tryAcquire(Object, long)}, without blocking the calling thread: on an engine that answers over
     * the network (Redis) the call returns at once and the future completes when the engine answers, or with
     * the {@link WhenUnavailable} answer when it does not answer within its command timeout. On the in-memory
     * engine the future is complete when returned. A shared engine may complete the future on its client's I/O
     * thread: do not block in what is chained to it.
     *
     * @param key the key, such as a tenant id or client address
     * @param permits how many permits the request costs, from 1 to the policy's {@link LimitPolicy#limit()}
     * @return a future completed with the decision
     * @throws IllegalArgumentException as {@link #tryAcquire(Object, long)}, at the call
     * @throws IllegalStateException if the engine is closed, at the call
     */
    CompletableFuture<Decision> tryAcquireAsync(K key, long permits);

    /**
     * Takes {@code permits} for {@code key}, waiting up to {@code timeout} for them. Gives up at once, with
     * the denial, when the wait the limiter reports exceeds what is left of the timeout.
     *
     * @param key the key
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @param timeout how long to wait at most, zero or positive
     * @return an allowed decision, or the denial that made it give up
     * @throws IllegalArgumentException as {@link #tryAcquire(Object, long)}, or if the timeout is negative
     * @throws IllegalStateException if the engine is closed
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    Decision acquire(K key, long permits, Duration timeout) throws InterruptedException;

    /**
     * As {@link #acquire(Object, long, Duration)}, without blocking the calling thread on any engine: each
     * attempt is {@link #tryAcquireAsync}, and the waits between attempts are scheduled on the engine's clock.
     *
     * @param key the key
     * @param permits how many permits the request costs, from 1 to the policy's limit
     * @param timeout how long to wait at most, zero or positive
     * @return a future completed with an allowed decision, or with the denial that made it give up
     * @throws IllegalArgumentException as {@link #acquire(Object, long, Duration)}, at the call
     * @throws IllegalStateException if the engine is closed, at the call
     */
    CompletableFuture<Decision> acquireAsync(K key, long permits, Duration timeout);
}
