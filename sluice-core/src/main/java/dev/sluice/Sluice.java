package dev.sluice;

import dev.sluice.internal.limit.InMemoryEngine;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.SluiceClock;

/**
 * An engine: where limits (and queues) keep their state. Start with {@link #inMemory()}; move to a shared
 * engine such as Redis by changing only how the {@code Sluice} is created.
 *
 * <p>Thread-safe. Closing it releases what the engine holds; limiters obtained from it must not be used
 * afterwards.
 */
public interface Sluice extends AutoCloseable {

    /** An engine that keeps everything in this JVM, on the system clock. */
    static Sluice inMemory() {
        return inMemory(SluiceClock.system());
    }

    /** An engine that keeps everything in this JVM, on {@code clock} (a ManualClock in tests). */
    static Sluice inMemory(SluiceClock clock) {
        return new InMemoryEngine(clock);
    }

    /** The clock every decision of this engine is made on. */
    SluiceClock clock();

    /**
     * The limiter called {@code name}, created with {@code policy} and default options if it does not exist
     * yet. An existing limiter is returned as it is, whatever its policy: change a policy with {@link
     * RateLimiter#updatePolicy}.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @throws IllegalArgumentException if the name is malformed or the policy is null
     */
    default RateLimiter limiter(String name, LimitPolicy policy) {
        return limiter(name, policy, LimiterOptions.defaults());
    }

    /**
     * The limiter called {@code name}, created with {@code policy} and {@code options} if it does not exist
     * yet.
     *
     * @throws IllegalArgumentException as {@link #limiter(String, LimitPolicy)}
     */
    RateLimiter limiter(String name, LimitPolicy policy, LimiterOptions options);

    /**
     * The queue called {@code name}, created with default options if it does not exist yet.
     *
     * @throws IllegalArgumentException as {@link #queue(String, Codec, QueueOptions)}
     */
    default <T> JobQueue<T> queue(String name, Codec<T> codec) {
        return queue(name, codec, QueueOptions.defaults());
    }

    /**
     * The queue called {@code name}, created with {@code options} if it does not exist yet. An existing queue
     * is returned as it is, whatever the options: change its limits on the queue.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param codec how payloads are stored; an existing queue must have been opened with an equal codec
     * @throws IllegalArgumentException if the name is malformed, an argument is null, or the queue exists with
     *     another codec
     * @throws UnsupportedOperationException if the engine keeps no queues: the Redis engine shares limiters
     *     only, for now
     */
    <T> JobQueue<T> queue(String name, Codec<T> codec, QueueOptions options);

    /** Starts a chain of limiters of this engine, acquired all or nothing. */
    <C> LimitChain.Builder<C> chain();

    /**
     * Closes every worker of its queues, giving running jobs 30 seconds on the engine's clock to finish (then
     * they go back to waiting), waits for that, and releases what the engine holds. On a {@code ManualClock}
     * that deadline passes only when the clock is advanced: close workers with a zero deadline first in tests
     * whose processors may still be running.
     */
    @Override
    void close();
}
