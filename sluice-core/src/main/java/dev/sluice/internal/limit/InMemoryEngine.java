package dev.sluice.internal.limit;

import dev.sluice.Sluice;
import dev.sluice.internal.queue.InMemoryQueue;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.SluiceClock;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/** The engine that keeps every limiter's state in this JVM. */
public final class InMemoryEngine implements Sluice {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final SluiceClock clock;
    private final ConcurrentHashMap<String, InMemoryRateLimiter> limiters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, InMemoryQueue<?>> queues = new ConcurrentHashMap<>();

    /** An engine on {@code clock}. */
    public InMemoryEngine(SluiceClock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public SluiceClock clock() {
        return clock;
    }

    @Override
    public RateLimiter limiter(String name, LimitPolicy policy, LimiterOptions options) {
        checkName(name);
        if (policy == null) {
            throw new IllegalArgumentException("policy of limiter '" + name + "' must not be null");
        }
        if (options == null) {
            throw new IllegalArgumentException("options of limiter '" + name + "' must not be null");
        }
        return limiters.computeIfAbsent(name, n -> new InMemoryRateLimiter(this, n, policy, options));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> JobQueue<T> queue(String name, Codec<T> codec, QueueOptions options) {
        checkName("queue", name);
        if (codec == null) {
            throw new IllegalArgumentException("codec of queue '" + name + "' must not be null; use Codec.utf8()");
        }
        if (options == null) {
            throw new IllegalArgumentException(
                    "options of queue '" + name + "' must not be null; use QueueOptions.defaults()");
        }
        InMemoryQueue<?> queue = queues.computeIfAbsent(name, n -> new InMemoryQueue<>(n, codec, options, clock));
        if (!queue.codec().equals(codec)) {
            throw new IllegalArgumentException(
                    "queue '" + name + "' is open with codec " + queue.codec() + "; it cannot be opened with " + codec);
        }
        return (JobQueue<T>) queue;
    }

    static void checkName(String name) {
        checkName("limiter", name);
    }

    static void checkName(String what, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name must be 1 to 128 letters, digits or . _ - :, was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
    }

    @Override
    public <C> LimitChain.Builder<C> chain() {
        return new LimitChain.Builder<>(layers -> new InMemoryChain<>(this, layers));
    }

    @Override
    public void close() {
        queues.values().forEach(InMemoryQueue::closeWorkers);
        queues.clear();
        limiters.clear();
    }

    @Override
    public String toString() {
        return "Sluice.inMemory(" + clock + ")";
    }
}
