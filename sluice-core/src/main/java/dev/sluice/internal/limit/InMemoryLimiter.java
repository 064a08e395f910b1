package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.Limiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A limiter whose keys live in this JVM: what a {@link InMemoryRateLimiter} and a {@link
 * InMemoryConcurrencyLimiter} share.
 */
abstract sealed class InMemoryLimiter<P extends LimitPolicy> implements Limiter<String>
        permits InMemoryRateLimiter, InMemoryConcurrencyLimiter {
    final InMemoryLimiters owner;
    final String name;
    final SluiceClock clock;
    private final LimiterOptions options;
    /** The options' listener and the engine's, made safe to call. */
    final LimiterEvents listener;

    final KeyTable table;
    volatile Algorithm algorithm;

    InMemoryLimiter(InMemoryLimiters owner, String name, P policy, LimiterOptions options) {
        this.owner = owner;
        this.name = name;
        this.clock = owner.clock();
        this.options = options;
        this.listener = owner.listeners.forLimiter(options.listener());
        this.algorithm = Algorithm.of(name, policy, clock, owner::isClosed);
        this.table = new KeyTable(name, options.maxKeys(), listener, clock.nanos());
    }

    @Override
    public Decision tryAcquire(String key, long permits) {
        Algorithm current = checked(key, permits);
        Decision decision = decide(current, key, clock.nanos(), permits, true);
        tell(key, permits, decision);
        return decision;
    }

    /** The algorithm in force, once the engine is open and the key and permits are valid under it. */
    Algorithm checked(String key, long permits) {
        owner.checkOpen();
        Algorithm current = algorithm;
        checkKey(key);
        checkPermits(current, permits);
        return current;
    }

    void tell(String key, long permits, Decision decision) {
        if (decision.allowed()) {
            listener.onAllowed(name, key, permits, decision);
        } else {
            listener.onDenied(name, key, permits, decision);
        }
    }

    @Override
    public CompletableFuture<Decision> tryAcquireAsync(String key, long permits) {
        return CompletableFuture.completedFuture(tryAcquire(key, permits));
    }

    /** As {@link dev.sluice.limit.NamedLimiter#peek}. */
    public Decision peek(String key, long permits) {
        Algorithm current = checked(key, permits);
        return table.decide(key, current, clock.nanos(), permits, false, null, 0);
    }

    /** As {@link dev.sluice.limit.NamedLimiter#reset}. */
    public void reset(String key) {
        owner.checkOpen();
        checkKey(key);
        Algorithm current = algorithm;
        KeyState state = table.state(key, current, clock.nanos());
        if (!table.isOverflow(state)) {
            current.reset(state);
        }
    }

    /** The decision for {@code key} at {@code now}. */
    Decision decide(Algorithm current, String key, long now, long permits, boolean commit) {
        return table.decide(key, current, now, permits, commit, null, 0);
    }

    @Override
    public Decision acquire(String key, long permits, Duration timeout) throws InterruptedException {
        return Waiting.acquire(this, clock, this::maxStepNanos, key, permits, timeout);
    }

    @Override
    public CompletableFuture<Decision> acquireAsync(String key, long permits, Duration timeout) {
        return Waiting.acquireAsync(this, clock, this::maxStepNanos, key, permits, timeout);
    }

    long maxStepNanos(Decision denial) {
        return algorithm.maxWaitStepNanos();
    }

    /** The limiter's name. */
    public String name() {
        return name;
    }

    /** The policy in force. */
    @SuppressWarnings("unchecked") // the algorithm's policy is always of the kind the limiter was made with
    public P policy() {
        return (P) algorithm.policy;
    }

    /** As {@link dev.sluice.limit.RateLimiter#setPolicy} and {@link dev.sluice.limit.ConcurrencyLimiter#setPolicy}. */
    public void setPolicy(P policy) {
        changePolicy(policy);
    }

    /** The options the limiter was created with. */
    public LimiterOptions options() {
        return options;
    }

    Algorithm algorithm() {
        return algorithm;
    }

    /** Replaces the policy by {@code policy}, of the same kind. */
    synchronized void changePolicy(LimitPolicy policy) {
        owner.checkOpen();
        Algorithm previous = algorithm;
        Limits.checkUpdate(name, previous.policy, policy);
        Algorithm next = Algorithm.of(name, policy, clock, owner::isClosed);
        algorithm = next;
        table.adopt(next, previous, clock.nanos());
    }

    void checkKey(String key) {
        Limits.checkKey(key);
    }

    void checkPermits(Algorithm current, long permits) {
        Limits.checkPermits(name, current.policy, permits);
    }

    @Override
    public String toString() {
        String kind = this instanceof InMemoryRateLimiter ? "RateLimiter" : "ConcurrencyLimiter";
        return kind + "[" + name + ", " + algorithm.policy + ", " + owner.engine + "]";
    }
}
