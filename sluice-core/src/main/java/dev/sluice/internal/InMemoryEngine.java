package dev.sluice.internal;

import dev.sluice.EngineListener;
import dev.sluice.Sluice;
import dev.sluice.internal.limit.EngineListeners;
import dev.sluice.internal.limit.InMemoryLimiters;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.InMemoryQueue;
import dev.sluice.internal.queue.QueueChecks;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/** The engine that keeps every limiter's and every queue's state in this JVM. */
public final class InMemoryEngine implements Sluice {
    private final SluiceClock clock;
    private final InMemoryLimiters limiters;
    private final EngineListeners listeners;
    private final ConcurrentHashMap<String, InMemoryQueue<?>> queues = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

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
        this.listeners = new EngineListeners(this, closed::get);
        this.limiters = new InMemoryLimiters(this, clock, listeners);
    }

    @Override
    public SluiceClock clock() {
        return clock;
    }

    @Override
    public RateLimiter limiter(String name, RatePolicy policy, LimiterOptions options) {
        return limiters.limiter(name, policy, options);
    }

    @Override
    public ConcurrencyLimiter concurrencyLimiter(String name, ConcurrencyLimit policy, LimiterOptions options) {
        return limiters.concurrencyLimiter(name, policy, options);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> JobQueue<T> queue(String name, Codec<T> codec, QueueOptions options) {
        checkOpen();
        QueueChecks.checkQueue(name, codec, options);
        InMemoryQueue<?> queue = listeners.queue(
                queues, name, n -> new InMemoryQueue<>(this, n, codec, options, clock, this::obliterated), opened -> {
                    if (closed.get()) {
                        // a close that ran while the queue was created may have missed it
                        opened.closeWorkers();
                        throw Limits.closed(this);
                    }
                    if (!opened.codec().name().equals(codec.name())) {
                        throw QueueChecks.otherCodec(
                                name, "is open", opened.codec().name(), codec.name());
                    }
                });
        return (JobQueue<T>) queue;
    }

    @Override
    public List<String> queueNames() {
        checkOpen();
        List<String> names = new ArrayList<>(queues.keySet());
        names.sort(null);
        return names;
    }

    @Override
    public Optional<JobQueue<?>> existingQueue(String name) {
        checkOpen();
        Limits.checkName("queue", name);
        return Optional.ofNullable(queues.get(name));
    }

    /** Queue {@code queue} was obliterated: a later open of its name creates it anew. */
    private void obliterated(InMemoryQueue<?> queue) {
        queues.remove(queue.name(), queue);
    }

    @Override
    public <C> LimitChain.Builder<C> chain() {
        return limiters.chain();
    }

    @Override
    public void addListener(EngineListener listener) {
        listeners.add(listener, limiters.all(), queues.values());
    }

    @Override
    public boolean removeListener(EngineListener listener) {
        return listeners.remove(listener);
    }

    /**
     * Refuses every further use of the engine, its limiters and its queues, then waits for every queue's
     * workers to close and for its listeners to hear what happened before (10 s at most); a second call does
     * nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        listeners.awaitMakings();
        limiters.close();
        listeners.clear();
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        List<InMemoryQueue<?>> closed = new ArrayList<>(queues.values());
        closed.forEach(queue -> closing.add(queue.closeWorkers()));
        queues.clear();
        closing.forEach(CompletableFuture::join);
        closed.forEach(InMemoryQueue::awaitListenersOnClose);
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
