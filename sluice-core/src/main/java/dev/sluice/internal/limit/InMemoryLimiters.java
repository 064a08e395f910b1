package dev.sluice.internal.limit;

import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
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

    private final ConcurrentHashMap<String, InMemoryRateLimiter> limiters = new ConcurrentHashMap<>();
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
     * As {@link dev.sluice.Sluice#limiter(String, LimitPolicy, LimiterOptions)}; a limiter it creates is announced
     * to the engine's listeners before it is returned.
     */
    public RateLimiter limiter(String name, LimitPolicy policy, LimiterOptions options) {
        checkOpen();
        Limits.checkLimiter(name, policy, options);
        return Limits.existing(
                listeners.limiter(limiters, name, n -> new InMemoryRateLimiter(this, n, policy, options)), policy);
    }

    /** The limiters made by {@link #limiter} and {@link #share}, a view that changes as they are made. */
    public Collection<? extends RateLimiter> all() {
        return limiters.values();
    }

    /**
     * The limiter called {@code name} under {@code policy}, created with default options or changed to {@code
     * policy} if it exists with another policy of the same kind.
     */
    public RateLimiter share(String name, LimitPolicy policy) {
        checkOpen();
        RateLimiter limiter = limiters.computeIfAbsent(
                name, n -> new InMemoryRateLimiter(this, n, policy, LimiterOptions.defaults()));
        if (!limiter.policy().equals(policy)) {
            limiter.setPolicy(policy);
        }
        return limiter;
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
