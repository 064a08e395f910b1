package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The limiters and queues declared under {@code sluice.limiters} and {@code sluice.queues}, opened on the
 * application's engine: inject it and ask for one by name. Queues declared in properties carry UTF-8 string
 * payloads ({@link Codec#utf8()}); open a queue of another payload type on the engine itself. Immutable and
 * thread-safe.
 */
public final class SluiceRegistry {
    private final Map<String, RateLimiter> limiters;
    private final Map<String, JobQueue<String>> queues;

    /**
     * A registry of the given limiters and queues, for an application that replaces the one made from
     * properties.
     *
     * @param limiters the limiters by name
     * @param queues the queues by name
     * @throws IllegalArgumentException if a map, a name or a value is null
     */
    public SluiceRegistry(Map<String, RateLimiter> limiters, Map<String, JobQueue<String>> queues) {
        if (limiters == null || queues == null) {
            throw new IllegalArgumentException("limiters and queues must be maps (empty for none), was null");
        }
        this.limiters = Collections.unmodifiableMap(new TreeMap<>(limiters));
        this.queues = Collections.unmodifiableMap(new TreeMap<>(queues));
    }

    /** Opens every declared limiter and queue on {@code sluice}, checking each property on the way. */
    static SluiceRegistry open(Sluice sluice, SluiceProperties properties) {
        Map<String, RateLimiter> limiters = new TreeMap<>();
        properties
                .limiters()
                .forEach((name, limiter) -> limiters.put(
                        name,
                        Declarations.core(
                                "sluice.limiters." + name,
                                name,
                                () -> sluice.limiter(
                                        name,
                                        Declarations.policy(name, limiter),
                                        Declarations.limiterOptions(name, limiter)))));
        Map<String, JobQueue<String>> queues = new TreeMap<>();
        properties
                .queues()
                .forEach((name, queue) -> queues.put(
                        name,
                        Declarations.core(
                                "sluice.queues." + name,
                                name,
                                () -> sluice.queue(name, Codec.utf8(), Declarations.queueOptions(name, queue)))));
        return new SluiceRegistry(limiters, queues);
    }

    /**
     * The declared limiter called {@code name}.
     *
     * @param name its name under {@code sluice.limiters}
     * @return the limiter
     * @throws IllegalArgumentException if no limiter of that name is declared (the message lists those that are)
     */
    public RateLimiter limiter(String name) {
        RateLimiter limiter = limiters.get(name);
        if (limiter == null) {
            throw new IllegalArgumentException(
                    "no limiter '" + name + "' is declared under sluice.limiters; declared: " + limiters.keySet());
        }
        return limiter;
    }

    /**
     * The declared queue called {@code name}.
     *
     * @param name its name under {@code sluice.queues}
     * @return the queue
     * @throws IllegalArgumentException if no queue of that name is declared (the message lists those that are)
     */
    public JobQueue<String> queue(String name) {
        JobQueue<String> queue = queues.get(name);
        if (queue == null) {
            throw new IllegalArgumentException(
                    "no queue '" + name + "' is declared under sluice.queues; declared: " + queues.keySet());
        }
        return queue;
    }

    /**
     * Every declared limiter.
     *
     * @return the limiters by name, sorted by name, unmodifiable
     */
    public Map<String, RateLimiter> limiters() {
        return limiters;
    }

    /**
     * Every declared queue.
     *
     * @return the queues by name, sorted by name, unmodifiable
     */
    public Map<String, JobQueue<String>> queues() {
        return queues;
    }

    @Override
    public String toString() {
        return "SluiceRegistry[limiters " + limiters.keySet() + ", queues " + queues.keySet() + "]";
    }
}
