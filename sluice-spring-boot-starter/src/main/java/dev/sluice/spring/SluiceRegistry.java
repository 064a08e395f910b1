package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Schedule;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The limiters and queues declared under {@code sluice.limiters} and {@code sluice.queues}, and the queues of
 * {@link SluiceWorker} processors, opened on the application's engine: inject it and ask for one by name. Queues
 * declared only in properties carry UTF-8 string payloads ({@link Codec#utf8()}); the queue of a {@code
 * SluiceWorker} carries its processor's payload type. Immutable and thread-safe.
 */
public final class SluiceRegistry {
    private final Map<String, NamedLimiter> limiters;
    private final Map<String, JobQueue<?>> queues;
    private final Map<String, Class<?>> payloads;

    /**
     * A registry of the given limiters and queues of strings, for an application that replaces the one made from
     * properties.
     *
     * @param limiters the limiters by name
     * @param queues the queues by name
     * @throws IllegalArgumentException if a map, a name or a value is null
     */
    public SluiceRegistry(Map<String, NamedLimiter> limiters, Map<String, JobQueue<String>> queues) {
        this(limiters, queues, stringsOf(queues));
    }

    private SluiceRegistry(
            Map<String, NamedLimiter> limiters,
            Map<String, ? extends JobQueue<?>> queues,
            Map<String, Class<?>> payloads) {
        if (limiters == null || queues == null) {
            throw new IllegalArgumentException("limiters and queues must be maps (empty for none), was null");
        }
        this.limiters = Collections.unmodifiableMap(new TreeMap<>(limiters));
        this.queues = Collections.unmodifiableMap(new TreeMap<>(queues));
        this.payloads = Map.copyOf(payloads);
    }

    private static Map<String, Class<?>> stringsOf(Map<String, JobQueue<String>> queues) {
        Map<String, Class<?>> payloads = new TreeMap<>();
        if (queues != null) {
            queues.keySet().forEach(name -> payloads.put(name, String.class));
        }
        return payloads;
    }

    /**
     * Opens every declared limiter and queue, and the queue of each {@link SluiceWorker}, on {@code sluice},
     * checking each property on the way.
     *
     * @param annotated the payloads of the queues {@code SluiceWorker} processors run, by queue name
     */
    static SluiceRegistry open(
            Sluice sluice, SluiceProperties properties, Map<String, AnnotatedWorkers.Payload> annotated) {
        Map<String, NamedLimiter> limiters = new TreeMap<>();
        properties.limiters().forEach((name, limiter) -> {
            LimitPolicy policy = Declarations.policy(name, limiter);
            LimiterOptions options = Declarations.limiterOptions(name, limiter);
            limiters.put(name, Declarations.core("sluice.limiters." + name, name, () -> switch (policy) {
                case RatePolicy rate -> sluice.limiter(name, rate, options);
                case ConcurrencyLimit concurrency -> sluice.concurrencyLimiter(name, concurrency, options);
            }));
        });
        Map<String, JobQueue<?>> queues = new TreeMap<>();
        Map<String, Class<?>> payloads = new TreeMap<>();
        properties.queues().forEach((name, queue) -> {
            AnnotatedWorkers.Payload payload = annotated.get(name);
            Codec<?> codec = payload == null ? Codec.utf8() : payload.codec();
            queues.put(
                    name,
                    Declarations.core(
                            "sluice.queues." + name,
                            name,
                            () -> sluice.queue(name, codec, Declarations.queueOptions(name, queue))));
            payloads.put(name, payload == null ? String.class : payload.type());
            repeat(name, queues.get(name), payloads.get(name), queue.repeat());
        });
        annotated.forEach((name, payload) -> {
            if (queues.containsKey(name)) {
                return;
            }
            try {
                queues.put(name, sluice.queue(name, payload.codec()));
            } catch (IllegalArgumentException e) {
                throw SluiceAnnotationException.of(
                        payload.where(), e.getMessage(), "Name a queue the engine can open.");
            }
            payloads.put(name, payload.type());
        });
        return new SluiceRegistry(limiters, queues, payloads);
    }

    /** Registers the repeatable jobs of {@code sluice.queues.NAME.repeat} on the queue. */
    @SuppressWarnings("unchecked")
    private static void repeat(
            String name, JobQueue<?> queue, Class<?> payload, List<SluiceProperties.Repeat> repeats) {
        for (int i = 0; i < repeats.size(); i++) {
            String prefix = "sluice.queues." + name + ".repeat[" + i + "].";
            SluiceProperties.Repeat repeat = repeats.get(i);
            if (repeat.id() == null) {
                throw new SluicePropertyException(
                        prefix + "id", null, "a repeatable job needs an id", "an id unique in the queue");
            }
            if (repeat.job() == null) {
                throw new SluicePropertyException(
                        prefix + "job", null, "a repeatable job needs the name of the jobs it adds", "a job name");
            }
            Schedule schedule = Declarations.schedule(prefix, repeat);
            if (payload != String.class) {
                throw SluicePropertyException.withAction(
                        prefix + "id",
                        repeat.id(),
                        "queue '" + name + "' carries " + payload.getTypeName() + " payloads, and properties give a"
                                + " repeatable job a string",
                        "Register this repeatable job in code, with the queue's repeat method, and remove it from"
                                + " the properties.");
            }
            NewJob<String> template = new NewJob<>(repeat.job(), repeat.payload() == null ? "" : repeat.payload());
            Declarations.core(
                    prefix + "id",
                    repeat.id(),
                    () -> ((JobQueue<String>) queue).repeat(repeat.id(), schedule, template));
        }
    }
    /**
     * The declared limiter called {@code name}: a {@link ConcurrencyLimiter} if its policy is {@code concurrency},
     * a {@link RateLimiter} otherwise.
     *
     * @param name its name under {@code sluice.limiters}
     * @return the limiter
     * @throws IllegalArgumentException if no limiter of that name is declared (the message lists those that are)
     */
    public NamedLimiter limiter(String name) {
        NamedLimiter limiter = limiters.get(name);
        if (limiter == null) {
            throw new IllegalArgumentException(
                    "no limiter '" + name + "' is declared under sluice.limiters; declared: " + limiters.keySet());
        }
        return limiter;
    }

    /**
     * The declared limiter called {@code name}, of the kind asked for.
     *
     * @param name its name under {@code sluice.limiters}
     * @param kind {@code RateLimiter.class}, or {@code ConcurrencyLimiter.class} for a {@code concurrency} policy
     * @param <L> the kind
     * @return the limiter
     * @throws IllegalArgumentException if no limiter of that name is declared (the message lists those that are),
     *     or it is of the other kind (the message names the kind it is)
     */
    public <L extends NamedLimiter> L limiter(String name, Class<L> kind) {
        NamedLimiter limiter = limiter(name);
        if (!kind.isInstance(limiter)) {
            String is = limiter instanceof RateLimiter ? "RateLimiter" : "ConcurrencyLimiter";
            throw new IllegalArgumentException("limiter '" + name + "' declared under sluice.limiters is a " + is
                    + " (policy " + limiter.policy() + "), not a " + kind.getSimpleName() + "; ask for " + is
                    + ".class");
        }
        return kind.cast(limiter);
    }

    /**
     * The queue of strings called {@code name}.
     *
     * @param name its name under {@code sluice.queues}, or in a {@link SluiceWorker}
     * @return the queue
     * @throws IllegalArgumentException if no queue of that name is here (the message lists those that are), or
     *     its payloads are not strings
     */
    public JobQueue<String> queue(String name) {
        return queue(name, String.class);
    }

    /**
     * The queue called {@code name}, whose payloads are of type {@code payload}.
     *
     * @param name its name under {@code sluice.queues}, or in a {@link SluiceWorker}
     * @param payload the payload type, exactly as the queue has it
     * @param <T> the payload type
     * @return the queue
     * @throws IllegalArgumentException if no queue of that name is here (the message lists those that are), or
     *     its payloads are of another type (the message names it)
     */
    @SuppressWarnings("unchecked")
    public <T> JobQueue<T> queue(String name, Class<T> payload) {
        JobQueue<?> queue = queues.get(name);
        if (queue == null) {
            throw new IllegalArgumentException("no queue '" + name + "' is declared under sluice.queues or by a"
                    + " @SluiceWorker; declared: " + queues.keySet());
        }
        Class<?> type = payloads.get(name);
        if (type != payload) {
            throw new IllegalArgumentException("queue '" + name + "' carries " + type.getTypeName() + " payloads, not "
                    + (payload == null ? null : payload.getTypeName()) + "; ask for queue(\"" + name + "\", "
                    + type.getSimpleName() + ".class)");
        }
        return (JobQueue<T>) queue;
    }

    /**
     * Every declared limiter.
     *
     * @return the limiters by name, sorted by name, unmodifiable
     */
    public Map<String, NamedLimiter> limiters() {
        return limiters;
    }

    /**
     * Every queue here: those declared in properties and those of {@link SluiceWorker} processors.
     *
     * @return the queues by name, sorted by name, unmodifiable
     */
    public Map<String, JobQueue<?>> queues() {
        return queues;
    }

    @Override
    public String toString() {
        return "SluiceRegistry[limiters " + limiters.keySet() + ", queues " + queues.keySet() + "]";
    }
}
