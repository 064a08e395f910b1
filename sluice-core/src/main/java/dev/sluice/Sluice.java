package dev.sluice;

import dev.sluice.internal.InMemoryEngine;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.SluiceClock;
import java.util.List;
import java.util.Optional;

/**
 * An engine: where limiters and queues keep their state. Start with {@link #inMemory()}; move to a shared
 * engine such as Redis by changing only how the {@code Sluice} is created.
 *
 * <p>Thread-safe. {@link #close()} releases what the engine holds; from then on every use of the engine and of
 * what it handed out (limiters, bound keys, chains and their builders, queues and workers) throws an {@link
 * IllegalStateException} that names the engine. What an object is stays readable ({@code name()}, {@code
 * policy()}, {@code options()}, {@code toString()}), closing again does nothing, and releasing a lease taken
 * before returns false without throwing.
 */
public interface Sluice extends AutoCloseable {

    /**
     * An engine that keeps everything in this JVM, on the system clock.
     *
     * @return a new engine
     */
    static Sluice inMemory() {
        return inMemory(SluiceClock.system());
    }

    /**
     * An engine that keeps everything in this JVM, on {@code clock} (a ManualClock in tests).
     *
     * @param clock the clock of every decision and job
     * @return a new engine
     * @throws IllegalArgumentException if the clock is null
     */
    static Sluice inMemory(SluiceClock clock) {
        return new InMemoryEngine(clock);
    }

    /**
     * The clock every decision of this engine is made on.
     *
     * @return the clock
     */
    SluiceClock clock();

    /**
     * The rate limiter called {@code name}, created with {@code policy} and default options if it does not exist
     * yet. As {@link #limiter(String, RatePolicy, LimiterOptions)}.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param policy the limiter's policy
     * @return the limiter
     * @throws IllegalArgumentException as {@link #limiter(String, RatePolicy, LimiterOptions)}
     * @throws IllegalStateException if the engine is closed
     */
    default RateLimiter limiter(String name, RatePolicy policy) {
        return limiter(name, policy, LimiterOptions.defaults());
    }

    /**
     * The rate limiter called {@code name}, created with {@code policy} and {@code options} if it does not exist
     * yet. An existing limiter is returned if its policy in force equals {@code policy} (with the options it
     * was created with); if it has another policy, this throws rather than hand out a limiter that would not
     * limit as asked: change a limiter's policy with {@link RateLimiter#setPolicy}. A name belongs to one limiter
     * of either kind: a name taken by a {@link ConcurrencyLimiter} is refused.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param policy the limiter's policy
     * @param options the options of a new limiter
     * @return the limiter
     * @throws IllegalArgumentException if the name is malformed, an argument is null, the limiter exists with
     *     another policy (the message names the limiter and both policies), or the name is a concurrency
     *     limiter's
     * @throws IllegalStateException if the engine is closed
     */
    RateLimiter limiter(String name, RatePolicy policy, LimiterOptions options);

    /**
     * The concurrency limiter called {@code name}, created with {@code policy} and default options if it does
     * not exist yet. As {@link #concurrencyLimiter(String, ConcurrencyLimit, LimiterOptions)}.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param policy the limiter's policy
     * @return the limiter
     * @throws IllegalArgumentException as {@link #concurrencyLimiter(String, ConcurrencyLimit, LimiterOptions)}
     * @throws IllegalStateException if the engine is closed
     */
    default ConcurrencyLimiter concurrencyLimiter(String name, ConcurrencyLimit policy) {
        return concurrencyLimiter(name, policy, LimiterOptions.defaults());
    }

    /**
     * The concurrency limiter called {@code name}, created with {@code policy} and {@code options} if it does not
     * exist yet. An existing limiter is returned if its policy in force equals {@code policy} (with the options it
     * was created with); if it has another policy, this throws: change it with {@link
     * ConcurrencyLimiter#setPolicy}. A name belongs to one limiter of either kind: a name taken by a {@link
     * RateLimiter} is refused.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param policy the limiter's policy
     * @param options the options of a new limiter
     * @return the limiter
     * @throws IllegalArgumentException if the name is malformed, an argument is null, the limiter exists with
     *     another policy (the message names the limiter and both policies), or the name is a rate limiter's
     * @throws IllegalStateException if the engine is closed
     */
    ConcurrencyLimiter concurrencyLimiter(String name, ConcurrencyLimit policy, LimiterOptions options);

    /**
     * The queue called {@code name}, created with default options if it does not exist yet.
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param codec how payloads are stored
     * @param <T> the payload type
     * @return the queue
     * @throws IllegalArgumentException as {@link #queue(String, Codec, QueueOptions)}
     * @throws IllegalStateException if the engine is closed
     */
    default <T> JobQueue<T> queue(String name, Codec<T> codec) {
        return queue(name, codec, QueueOptions.defaults());
    }

    /**
     * The queue called {@code name}, opened with {@code options} if this engine has not opened it yet; a queue
     * this engine holds open is returned as it is, whatever the options: change its limits on the queue. On a
     * shared engine (Redis) every process that opens the queue shares its jobs, counts and limits, and opening it
     * stores the options given for all of them (an option left at its default leaves the stored one as it is).
     *
     * @param name 1 to 128 characters: letters, digits and {@code . _ - :}
     * @param codec how payloads are stored; an existing queue must have been opened with a codec of the same
     *     {@link Codec#name()}
     * @param options the options of a new queue
     * @param <T> the payload type
     * @return the queue
     * @throws IllegalArgumentException if the name is malformed, an argument is null, or the queue exists with
     *     a codec of another name
     * @throws IllegalStateException if the engine is closed
     */
    <T> JobQueue<T> queue(String name, Codec<T> codec, QueueOptions options);

    /**
     * The names of the queues the engine holds: on the in-memory engine, those opened and not obliterated; on a
     * shared engine (Redis), every queue any process created under the engine's key prefix, whether or not this
     * process opened it. Reading them creates nothing.
     *
     * @return the names, each once, in ascending {@link String#compareTo} order
     * @throws IllegalStateException if the engine is closed
     * @throws SluiceException if the engine's server cannot be reached
     */
    List<String> queueNames();

    /**
     * The queue called {@code name} if it exists, opened without creating or changing it: for tools that manage
     * queues they did not create, such as the command line and the dashboard. A queue this engine holds open is
     * returned as it is, with its codec; on a shared engine a queue this process has not opened is opened with a
     * codec of its stored codec's name that reads and writes the payloads' bytes as they are ({@link
     * JobQueue#codec()}). Unlike {@link #queue}, asking for a queue that does not exist writes nothing.
     *
     * @param name the queue's name
     * @return the queue, or empty if the engine holds no queue of that name
     * @throws IllegalArgumentException if the name is null or malformed
     * @throws IllegalStateException if the engine is closed
     * @throws SluiceException if the engine's server cannot be reached
     */
    Optional<JobQueue<?>> existingQueue(String name);

    /**
     * Starts a chain of limiters of this engine, acquired all or nothing.
     *
     * @param <C> what a request is identified by
     * @return a builder of the chain
     * @throws IllegalStateException if the engine is closed
     */
    <C> LimitChain.Builder<C> chain();

    /**
     * Adds a listener that hears every limiter's decisions and every limiter and queue of this engine, now and
     * later (see {@link EngineListener}). Before this returns it hears {@link EngineListener#onLimiterOpened} for
     * each limiter and {@link EngineListener#onQueueOpened} for each queue the engine holds, once each; adding
     * the same listener twice makes it hear everything twice.
     *
     * @param listener the listener
     * @throws IllegalArgumentException if {@code listener} is null
     * @throws IllegalStateException if the engine is closed
     */
    void addListener(EngineListener listener);

    /**
     * Removes a listener added before (one of its additions, if it was added more than once); it hears nothing
     * more once this returns, except events being told to it at that moment on other threads.
     *
     * @param listener the listener, compared by identity
     * @return whether it was there
     * @throws IllegalStateException if the engine is closed (which drops every listener)
     */
    boolean removeListener(EngineListener listener);

    /**
     * Closes every worker of its queues, giving running jobs 30 seconds on the engine's clock to finish (then
     * they go back to waiting), waits for that, and releases what the engine holds; from then on the engine
     * and everything it handed out refuse every use (see above). Idempotent: a second call does nothing and
     * logs nothing. On a {@code ManualClock} that deadline passes only when the clock is advanced: close
     * workers with a zero deadline first in tests whose processors may still be running.
     */
    @Override
    void close();
}
