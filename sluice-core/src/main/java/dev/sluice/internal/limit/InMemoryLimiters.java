package dev.sluice.internal.limit;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.time.SluiceClock;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limiters of one engine whose limits live in this JVM: the in-memory engine's, or the shares a Redis
 * engine falls back on. Once closed, every use of it or of its limiters and chains throws.
 */
public final class InMemoryLimiters {
    /** The engine, for messages. */
    final Object engine;

    private final SluiceClock clock;
    /** The engine-wide listeners: they hear every limiter's decisions, and each limiter {@link #limiter} creates. */
    final EngineListeners listeners;

    private final ConcurrentHashMap<String, InMemoryLimiter<?>> limiters = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * The limiters of {@code engine} (named in errors after it closes), deciding on {@code clock} and telling
     * {@code listeners}.
     */
    public InMemoryLimiters(Object engine, SluiceClock clock, EngineListeners listeners) {
        this.engine = engine;
        this.clock = clock;
        this.listeners = listeners;
    }

    /**
     * As {@link dev.sluice.Sluice#limiter(String, RatePolicy, LimiterOptions)}; a limiter it creates is announced
     * to the engine's listeners before it is returned.
     */
    public RateLimiter limiter(String name, RatePolicy policy, LimiterOptions options) {
        checkOpen();
        return Limits.open(
                listeners,
                limiters,
                name,
                policy,
                options,
                RateLimiter.class,
                n -> new InMemoryRateLimiter(this, n, policy, options));
    }

    /**
     * As {@link dev.sluice.Sluice#concurrencyLimiter(String, ConcurrencyLimit, LimiterOptions)}; a limiter it
     * creates is announced to the engine's listeners before it is returned.
     */
    public ConcurrencyLimiter concurrencyLimiter(String name, ConcurrencyLimit policy, LimiterOptions options) {
        checkOpen();
        return Limits.open(
                listeners,
                limiters,
                name,
                policy,
                options,
                ConcurrencyLimiter.class,
                n -> new InMemoryConcurrencyLimiter(this, n, policy, options));
    }

    /** The limiters made by {@link #limiter}, {@link #concurrencyLimiter} and {@link #share}, a changing view. */
    public Collection<?> all() {
        return limiters.values();
    }

    /**
     * The limiter called {@code name} under {@code policy}, of the kind the policy is for, created with default
     * options or changed to {@code policy} if it exists with another policy of the same kind.
     */
    public NamedLimiter share(String name, LimitPolicy policy) {
        checkOpen();
        Limits.checkNotAdaptive("limiter '" + name + "'", policy);
        InMemoryLimiter<?> limiter = limiters.computeIfAbsent(name, n -> switch (policy) {
            case RatePolicy rate -> new InMemoryRateLimiter(this, n, rate, LimiterOptions.defaults());
            case ConcurrencyLimit concurrency ->
                new InMemoryConcurrencyLimiter(this, n, concurrency, LimiterOptions.defaults());
        });
        if (!limiter.policy().equals(policy)) {
            limiter.changePolicy(policy);
        }
        return (NamedLimiter) limiter;
    }

    /** As {@link dev.sluice.Sluice#chain()}. */
    public <C> LimitChain.Builder<C> chain() {
        checkOpen();
        return new ChainBuilder<>(layers -> {
            checkOpen();
            return new InMemoryChain<>(this, layers);
        });
    }

    /** The clock every decision is made on. */
    SluiceClock clock() {
        return clock;
    }

    /** Closes the limiters: every later use throws. Idempotent. */
    public void close() {
        closed = true;
        limiters.clear();
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }

    /** Fails if the engine is closed. */
    public void checkOpen() {
        if (closed) {
            throw Limits.closed(engine);
        }
    }
}
