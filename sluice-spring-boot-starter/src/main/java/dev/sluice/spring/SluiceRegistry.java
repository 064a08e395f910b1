package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limiters and queues declared under {@code sluice.limiters} and {@code sluice.queues}, and the queues of
 * {@link SluiceWorker} processors, opened on the application's engine: inject it and ask for one by name. Queues
 * declared only in properties carry UTF-8 string payloads ({@link Codec#utf8()}); the queue of a {@code
 * SluiceWorker} carries its processor's payload type. A Redis engine made while Redis was down opens no queue
 * until it reaches Redis: the registry opens them then, with their repeatable jobs, and asking for one before
 * fails as a queue call fails during an outage. Thread-safe.
 */
public final class SluiceRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceRegistry.class);
    /** How long after a failed attempt to open the queues the next one starts. */
    private static final Duration REOPEN_INTERVAL = Duration.ofSeconds(1);

    private final Map<String, NamedLimiter> limiters;
    /** Why a declared queue is not open: said alike by {@link #queue} and the Actuator endpoint. */
    static final String NOT_REACHED = "the engine has not reached Redis since the application started";

    /** The open queues: all of them, or none while the engine has not reached Redis. */
    private volatile Map<String, JobQueue<?>> queues;

    private final Map<String, Class<?>> payloads;
    /** Completes once every queue is open. */
    private final CompletableFuture<Void> opened;

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
        this.opened =
                queues.size() == payloads.size() ? CompletableFuture.completedFuture(null) : new CompletableFuture<>();
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
     * checking each property on the way. While the engine has not reached Redis, the queues open once it has.
     *
     * @param annotated the payloads of the queues {@code SluiceWorker} processors run, by queue name
     */
    static SluiceRegistry open(
            Sluice sluice,
            SluiceProperties properties,
            Map<String, AnnotatedWorkers.Payload> annotated,
            EngineReach reach) {
        Map<String, NamedLimiter> limiters = new TreeMap<>();
        properties.limiters().forEach((name, limiter) -> {
            LimitPolicy policy = Declarations.policy(name, limiter);
            LimiterOptions options = Declarations.limiterOptions(name, limiter);
            limiters.put(name, Declarations.core("sluice.limiters." + name, name, () -> switch (policy) {
                case RatePolicy rate -> sluice.limiter(name, rate, options);
                case ConcurrencyLimit concurrency -> sluice.concurrencyLimiter(name, concurrency, options);
            }));
        });
        List<DeclaredQueue> declared = DeclaredQueue.all(sluice, properties, annotated);
        Map<String, Class<?>> payloads = new TreeMap<>();
        declared.forEach(queue -> payloads.put(queue.name(), queue.payload()));
        Map<String, JobQueue<?>> queues = new TreeMap<>();
        boolean waiting = false;
        for (DeclaredQueue queue : declared) {
            try {
                queues.put(queue.name(), queue.open());
            } catch (SluiceException e) {
                if (reach.reached()) {
                    throw e;
                }
                waiting = true;
            }
        }
        if (!waiting) {
            return new SluiceRegistry(limiters, queues, payloads);
        }
        SluiceRegistry registry = new SluiceRegistry(limiters, Map.of(), payloads);
        reach.whenReached().thenRunAsync(() -> registry.openOnceReached(sluice, declared, 0), SluiceRegistry::inThread);
        return registry;
    }

    /**
     * Opens the queues now that the engine reached Redis, trying again while Redis fails: the first failure is
     * logged as a warning, the next ones at debug level.
     *
     * @param failures how many attempts failed before this one
     */
    private void openOnceReached(Sluice sluice, List<DeclaredQueue> declared, int failures) {
        Map<String, JobQueue<?>> open = new TreeMap<>();
        try {
            for (DeclaredQueue queue : declared) {
                open.put(queue.name(), queue.open());
            }
        } catch (SluiceException e) {
            String again = "trying again every " + DurationText.format(REOPEN_INTERVAL);
            if (failures == 0) {
                LOG.warn("Sluice reached Redis but could not open the queues: {}; {}", e.getMessage(), again);
            } else {
                LOG.debug("Sluice still cannot open the queues: {}; {}", e.getMessage(), again);
            }
            sluice.clock()
                    .schedule(
                            REOPEN_INTERVAL.toNanos(),
                            () -> inThread(() -> openOnceReached(sluice, declared, failures + 1)));
            return;
        } catch (IllegalStateException closed) {
            return; // the engine closed: the application is stopping
        } catch (RuntimeException e) {
            LOG.error("Sluice reached Redis but cannot open the queues, and will not try again: {}", e.getMessage());
            return;
        }
        queues = Collections.unmodifiableMap(open);
        LOG.info("Sluice reached Redis: queues {} are open, and their workers start", String.join(", ", open.keySet()));
        opened.complete(null);
    }

    /** Runs {@code task} on a thread of its own, as opening queues waits for Redis. */
    private static void inThread(Runnable task) {
        Thread.ofVirtual().name("sluice-open-queues").start(task);
    }

    /** Completes once every queue is open: at once, unless the engine has not reached Redis yet. A copy. */
    CompletableFuture<Void> opened() {
        return opened.copy();
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
     * @throws SluiceException if the engine has not reached Redis since the application started: the queue is
     *     not open yet
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
     * @throws SluiceException if the engine has not reached Redis since the application started: the queue is
     *     not open yet
     */
    @SuppressWarnings("unchecked")
    public <T> JobQueue<T> queue(String name, Class<T> payload) {
        checkDeclared(name, payload);
        JobQueue<?> queue = queues.get(name);
        if (queue == null) {
            throw new SluiceException(
                    "queue '" + name + "' is not open yet: " + NOT_REACHED + ", and opens it once Redis answers");
        }
        return (JobQueue<T>) queue;
    }

    /**
     * Fails unless a queue called {@code name}, of {@code payload}s, is declared here, open or not.
     *
     * @throws IllegalArgumentException as {@link #queue(String, Class)}
     */
    void checkDeclared(String name, Class<?> payload) {
        Class<?> type = payloads.get(name);
        if (type == null) {
            throw new IllegalArgumentException("no queue '" + name + "' is declared under sluice.queues or by a"
                    + " @SluiceWorker; declared: " + payloads.keySet());
        }
        if (type != payload) {
            throw new IllegalArgumentException("queue '" + name + "' carries " + type.getTypeName() + " payloads, not "
                    + (payload == null ? null : payload.getTypeName()) + "; ask for queue(\"" + name + "\", "
                    + type.getSimpleName() + ".class)");
        }
    }

    /**
     * The names of every declared queue, open or not, sorted.
     *
     * @return the names
     */
    Set<String> declaredQueues() {
        return new TreeSet<>(payloads.keySet());
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
     * Every queue open here: those declared in properties and those of {@link SluiceWorker} processors; none while
     * the engine has not reached Redis since the application started.
     *
     * @return the queues by name, sorted by name, unmodifiable
     */
    public Map<String, JobQueue<?>> queues() {
        return queues;
    }

    @Override
    public String toString() {
        return "SluiceRegistry[limiters " + limiters.keySet() + ", queues " + payloads.keySet()
                + (opened.isDone() ? "" : " (not open yet)") + "]";
    }
}
