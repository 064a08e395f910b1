package dev.sluice.internal;

import dev.sluice.Sluice;
import dev.sluice.internal.limit.InMemoryLimiters;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.InMemoryQueue;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Worker;
import dev.sluice.time.SluiceClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/** The engine that keeps every limiter's and every queue's state in this JVM. */
public final class InMemoryEngine implements Sluice {
    /** What stays readable on a queue or worker of a closed engine: what it is, and closing it again. */
    private static final Set<String> AFTER_CLOSE =
            Set.of("name", "options", "toString", "hashCode", "equals", "close", "closeAsync");

    private final SluiceClock clock;
    private final InMemoryLimiters limiters;
    private final ConcurrentHashMap<String, Opened<?>> queues = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A queue and the view of it handed to users, which refuses every use once the engine is closed. */
    private record Opened<T>(InMemoryQueue<T> queue, JobQueue<T> guarded) {}

    /**
     * An engine on {@code clock}.
     *
     * @param clock the clock of every decision and job
     * @throws IllegalArgumentException if the clock is null
     */
    public InMemoryEngine(SluiceClock clock) {
        if (clock == null) {
            throw new IllegalArgumentException("clock must not be null; use SluiceClock.system()");
        }
        this.clock = clock;
        this.limiters = new InMemoryLimiters(this, clock);
    }

    @Override
    public SluiceClock clock() {
        return clock;
    }

    @Override
    public RateLimiter limiter(String name, LimitPolicy policy, LimiterOptions options) {
        return limiters.limiter(name, policy, options);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> JobQueue<T> queue(String name, Codec<T> codec, QueueOptions options) {
        checkOpen();
        Limits.checkName("queue", name);
        if (codec == null) {
            throw new IllegalArgumentException("codec of queue '" + name + "' must not be null; use Codec.utf8()");
        }
        if (options == null) {
            throw new IllegalArgumentException(
                    "options of queue '" + name + "' must not be null; use QueueOptions.defaults()");
        }
        Opened<?> opened = queues.computeIfAbsent(name, n -> {
            InMemoryQueue<T> queue = new InMemoryQueue<>(n, codec, options, clock);
            return new Opened<>(queue, guarded(JobQueue.class, queue));
        });
        if (!opened.queue().codec().equals(codec)) {
            throw new IllegalArgumentException("queue '" + name + "' is open with codec "
                    + opened.queue().codec() + "; it cannot be opened with " + codec);
        }
        return (JobQueue<T>) opened.guarded();
    }

    /**
     * {@code target} behind a view that checks the engine is open before every call but those of {@link
     * #AFTER_CLOSE}; a worker it returns is guarded the same way. A view rather than a check in each method,
     * so that every method a queue gains is guarded too.
     */
    private <I> I guarded(Class<I> type, Object target) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            String name = method.getName();
            if (name.equals("equals") && method.getParameterCount() == 1) {
                return proxy == args[0];
            }
            if (name.equals("hashCode") && method.getParameterCount() == 0) {
                return System.identityHashCode(proxy);
            }
            if (!AFTER_CLOSE.contains(name)) {
                checkOpen();
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return result instanceof Worker<?> worker && method.getReturnType() == Worker.class
                    ? guarded(Worker.class, worker)
                    : result;
        }));
    }

    @Override
    public <C> LimitChain.Builder<C> chain() {
        return limiters.chain();
    }

    /**
     * Closes every queue's workers, then refuses every further use; a second call does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        limiters.close();
        queues.values().forEach(opened -> opened.queue().closeWorkers());
        queues.clear();
    }

    private void checkOpen() {
        if (closed.get()) {
            throw Limits.closed(this);
        }
    }

    @Override
    public String toString() {
        return "Sluice.inMemory(" + clock + ")";
    }
}
