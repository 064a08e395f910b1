package dev.sluice.redis.internal;

import dev.sluice.internal.limit.LimiterEvents;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.limit.Waiting;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.Limiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** A limiter whose keys live in Redis: what a {@link RedisRateLimiter} and a {@link RedisConcurrencyLimiter} share. */
abstract sealed class RedisLimiter<P extends LimitPolicy> implements Limiter<String>
        permits RedisRateLimiter, RedisConcurrencyLimiter {
    private static final String PROCESS_ID =
            Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
    private static final AtomicLong LEASES = new AtomicLong();

    final RedisEngine engine;
    final String name;
    private final String keyStart;
    final LimiterOptions options;
    private final LimiterEvents listener;
    private final SluiceClock clock;
    private final AtomicBoolean toldUnavailable = new AtomicBoolean();
    private volatile P policy;
    private volatile String[] policyArgs;

    RedisLimiter(RedisEngine engine, String name, P policy, LimiterOptions options) {
        this.engine = engine;
        this.name = name;
        // the kind is part of the key, so that a name reused for another kind of policy starts afresh
        this.keyStart = RedisKeys.limiterStart(engine.keyPrefix, name, LimitScript.kind(policy));
        this.policy = policy;
        this.policyArgs = LimitScript.policyArgs(policy);
        this.options = options;
        this.listener = engine.listeners.forLimiter(options.listener());
        this.clock = engine.clock();
    }

    /** A decision and the Redis server's time it was made at (or the engine clock's, when degraded). */
    record Outcome(Decision decision, long serverNanos) {}

    @Override
    public Decision tryAcquire(String key, long permits) {
        return acquireTimed(key, permits).decision();
    }

    /** As {@link #tryAcquire}, with the time the decision was made at. */
    Outcome acquireTimed(String key, long permits) {
        LimitPolicy current = checked(key, permits);
        Outcome outcome = decide(LimitScript.ACQUIRE, layerOf(key, current), current, key, permits);
        tell(key, permits, outcome.decision());
        return outcome;
    }

    @Override
    public CompletableFuture<Decision> tryAcquireAsync(String key, long permits) {
        LimitPolicy current = checked(key, permits);
        LimitScript.Layer layer = layerOf(key, current);
        CompletableFuture<List<Object>> reply = engine.skipping()
                ? CompletableFuture.completedFuture(null)
                : engine.runAsync(
                        ScriptOutputType.MULTI,
                        LimitScript.keys(List.of(layer)),
                        args(LimitScript.ACQUIRE, layer, permits));
        return reply.thenApply(answer -> {
            Decision decision = outcome(answer, LimitScript.ACQUIRE, layer, current, key, permits)
                    .decision();
            tell(key, permits, decision);
            return decision;
        });
    }

    /** As {@link dev.sluice.limit.NamedLimiter#peek}. */
    public Decision peek(String key, long permits) {
        LimitPolicy current = checked(key, permits);
        return decide(LimitScript.PEEK, layerOf(key, current), current, key, permits)
                .decision();
    }

    /** As {@link dev.sluice.limit.NamedLimiter#reset}. */
    public void reset(String key) {
        engine.checkOpen();
        checkKey(key);
        LimitPolicy current = policy;
        if (!change(layerOf(key, current), LimitScript.resetArgs(engine.scriptNow())) && falling()) {
            fallback(current).reset(key);
        }
    }

    /** Runs a refund or reset on Redis; false if Redis is unavailable. */
    boolean change(LimitScript.Layer layer, String[] args) {
        if (!engine.skipping() && engine.run(ScriptOutputType.INTEGER, LimitScript.keys(layer), args) != null) {
            recovered();
            return true;
        }
        unavailable();
        return false;
    }

    boolean falling() {
        return options.whenUnavailable().action() == WhenUnavailable.Action.FALL_BACK;
    }

    /** The policy in force, once the engine is open and the key and permits are valid under it. */
    LimitPolicy checked(String key, long permits) {
        engine.checkOpen();
        LimitPolicy current = policy;
        checkKey(key);
        checkPermits(current, permits);
        return current;
    }

    String[] args(String operation, LimitScript.Layer layer, long permits) {
        return LimitScript.layerArgs(operation, List.of(layer), permits, engine.scriptNow());
    }

    /** The outcome of {@code operation} (acquire or peek) of one layer: one round trip. */
    Outcome decide(String operation, LimitScript.Layer layer, LimitPolicy current, String key, long permits) {
        List<Object> reply = engine.skipping()
                ? null
                : engine.run(ScriptOutputType.MULTI, LimitScript.keys(List.of(layer)), args(operation, layer, permits));
        return outcome(reply, operation, layer, current, key, permits);
    }

    /** What the script's {@code reply} means, or, if Redis did not answer (null), the degraded answer. */
    private Outcome outcome(
            List<Object> reply,
            String operation,
            LimitScript.Layer layer,
            LimitPolicy current,
            String key,
            long permits) {
        if (reply != null) {
            recovered();
            LimitScript.Reply parsed = LimitScript.parse(reply, 1);
            return new Outcome(decision(parsed.layers()[0], layer, current, parsed.nowNanos()), parsed.nowNanos());
        }
        unavailable();
        boolean commit = operation.equals(LimitScript.ACQUIRE);
        return new Outcome(degraded(current, key, permits, commit), clock.nanos());
    }

    /** The decision a script result stands for. */
    Decision decision(LimitScript.Result result, LimitScript.Layer layer, LimitPolicy current, long now) {
        Lease lease = Lease.none();
        if (result.allowed() && !result.leaseMember().isEmpty()) {
            long expiresAt = now + ((ConcurrencyLimit) current).leaseTimeout().toNanos();
            lease = new RedisLease(layer, result.leaseMember(), expiresAt);
        }
        return new Decision(
                result.allowed(),
                result.remaining(),
                current.limit(),
                result.retryAfterNanos(),
                result.resetAtNanos(),
                name,
                lease);
    }

    /** The script's view of {@code key} under {@code current}. */
    LimitScript.Layer layerOf(String key, LimitPolicy current) {
        String stateKey = RedisKeys.limiterKey(keyStart, key);
        String leaseId = current instanceof ConcurrencyLimit ? PROCESS_ID + "." + LEASES.incrementAndGet() : null;
        String[] args = policyArgs;
        if (policy != current) {
            args = LimitScript.policyArgs(current);
        }
        return new LimitScript.Layer(stateKey, RedisKeys.auxiliaryKey(stateKey), current, leaseId, args);
    }

    /**
     * What to answer while Redis is unavailable, by this limiter's {@link WhenUnavailable}; a fallback share
     * takes the permits only if {@code commit}.
     */
    Decision degraded(LimitPolicy current, String key, long permits, boolean commit) {
        WhenUnavailable when = options.whenUnavailable();
        long now = clock.nanos();
        long limit = current.limit();
        return switch (when.action()) {
            case DENY ->
                new Decision(
                        false,
                        0,
                        limit,
                        engine.nanosUntilRetry(),
                        now,
                        name,
                        Lease.none(),
                        Decision.Basis.UNAVAILABLE_DENIED);
            case ALLOW ->
                new Decision(
                        true, limit - permits, limit, 0, now, name, Lease.none(), Decision.Basis.UNAVAILABLE_ALLOWED);
            case FALL_BACK -> {
                NamedLimiter local = fallback(current);
                if (permits > local.policy().limit()) {
                    yield new Decision(
                            false,
                            local.policy().limit(),
                            limit,
                            engine.nanosUntilRetry(),
                            now,
                            name,
                            Lease.none(),
                            Decision.Basis.FALLBACK);
                }
                yield asFallback(commit ? local.tryAcquire(key, permits) : local.peek(key, permits));
            }
        };
    }

    /** This limiter's share of the limit, held in this process during the current outage. */
    NamedLimiter fallback(LimitPolicy current) {
        return engine.fallback()
                .share(name, Shares.scale(current, options.whenUnavailable().share()));
    }

    /** {@code decision} of the fallback share, relabelled as this limiter's. */
    Decision asFallback(Decision decision) {
        return new Decision(
                decision.allowed(),
                decision.remaining(),
                policy.limit(),
                decision.retryAfterNanos(),
                decision.resetAtNanos(),
                name,
                decision.lease(),
                Decision.Basis.FALLBACK);
    }

    /** Tells the listener once per outage that Redis is unavailable. */
    void unavailable() {
        if (!toldUnavailable.get() && toldUnavailable.compareAndSet(false, true)) {
            listener.onUnavailable(name, engine.lastFailure());
        }
    }

    /** Tells the listener once that Redis is back, if it heard it was not. */
    void recovered() {
        if (toldUnavailable.get() && toldUnavailable.compareAndSet(true, false)) {
            listener.onRecovered(name);
        }
    }

    void tell(String key, long permits, Decision decision) {
        if (decision.allowed()) {
            listener.onAllowed(name, key, permits, decision);
        } else {
            listener.onDenied(name, key, permits, decision);
        }
    }

    @Override
    public Decision acquire(String key, long permits, Duration timeout) throws InterruptedException {
        return Waiting.acquire(this, clock, this::maxStepNanos, key, permits, timeout);
    }

    @Override
    public CompletableFuture<Decision> acquireAsync(String key, long permits, Duration timeout) {
        return Waiting.acquireAsync(this, clock, this::maxStepNanos, key, permits, timeout);
    }

    /** Leases can be released before they expire, so a wait for one asks again every 5 ms. */
    long maxStepNanos(Decision denial) {
        return policy instanceof ConcurrencyLimit ? 5_000_000 : Long.MAX_VALUE;
    }

    /** Permits held in Redis until released or expired. */
    private final class RedisLease implements Lease {
        private final LimitScript.Layer layer;
        private final String member;
        private final long expiresAtNanos;
        private final AtomicBoolean released = new AtomicBoolean();

        RedisLease(LimitScript.Layer layer, String member, long expiresAtNanos) {
            this.layer = layer;
            this.member = member;
            this.expiresAtNanos = expiresAtNanos;
        }

        @Override
        public boolean release() {
            if (released.get() || engine.isClosed() || engine.skipping()) {
                return false;
            }
            Object returned = engine.run(
                    ScriptOutputType.INTEGER,
                    LimitScript.keys(List.of(layer)),
                    LimitScript.releaseArgs(member, engine.scriptNow()));
            if (returned == null) {
                unavailable();
                return false;
            }
            recovered();
            return LimitScript.parseRelease(returned) && released.compareAndSet(false, true);
        }

        @Override
        public long expiresAtNanos() {
            return expiresAtNanos;
        }

        @Override
        public String toString() {
            return "Lease[" + name + ", " + member + "]";
        }
    }

    /** The limiter's name. */
    public String name() {
        return name;
    }

    /** The policy in force. */
    public P policy() {
        return policy;
    }

    /** The options the limiter was created with. */
    public LimiterOptions options() {
        return options;
    }

    /** As {@link dev.sluice.limit.RateLimiter#setPolicy} and {@link dev.sluice.limit.ConcurrencyLimiter#setPolicy}. */
    public synchronized void setPolicy(P next) {
        engine.checkOpen();
        Limits.checkUpdate(name, policy, next);
        policyArgs = LimitScript.policyArgs(next);
        policy = next;
    }

    void checkKey(String key) {
        Limits.checkKey(key);
    }

    void checkPermits(LimitPolicy current, long permits) {
        Limits.checkPermits(name, current, permits);
    }

    @Override
    public String toString() {
        String kind = this instanceof RedisRateLimiter ? "RateLimiter" : "ConcurrencyLimiter";
        return kind + "[" + name + ", " + policy + ", " + engine + "]";
    }
}
