package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A limiter whose keys live in this JVM. */
final class InMemoryRateLimiter implements RateLimiter {
    final InMemoryLimiters owner;
    private final String name;
    private final SluiceClock clock;
    private final LimiterOptions options;
    /** The options' listener and the engine's, made safe to call. */
    final LimiterEvents listener;

    final KeyTable table;
    private volatile Algorithm algorithm;

    InMemoryRateLimiter(InMemoryLimiters owner, String name, LimitPolicy policy, LimiterOptions options) {
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
    private Algorithm checked(String key, long permits) {
        owner.checkOpen();
        Algorithm current = algorithm;
        checkKey(key);
        checkPermits(current, permits);
        return current;
    }

    private void tell(String key, long permits, Decision decision) {
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

    @Override
    public Decision peek(String key, long permits) {
        Algorithm current = checked(key, permits);
        return table.decide(key, current, clock.nanos(), permits, false, null, 0);
    }

    @Override
    public void refund(String key, long permits) {
        Algorithm current = checked(key, permits);
        Limits.checkRefundable(name, current.policy);
        long now = clock.nanos();
        current.refund(table.state(key, current, now), now, permits);
    }

    @Override
    public void reset(String key) {
        owner.checkOpen();
        checkKey(key);
        Algorithm current = algorithm;
        KeyState state = table.state(key, current, clock.nanos());
        if (!table.isOverflow(state)) {
            current.reset(state);
        }
    }

    @Override
    public boolean tryConsume(String key, long permits) {
        Algorithm current = checked(key, permits);
        checkConsumable(current);
        if (!listener.quiet()) {
            return tryAcquire(key, permits).allowed();
        }
        return table.consume(key, current, clock.nanos(), permits) == Algorithm.GRANTED;
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

    @Override
    public KeyLimiter forKey(String key) {
        owner.checkOpen();
        checkKey(key);
        return new BoundKey(key);
    }

    /**
     * A key whose state is remembered between calls. A remembered state stays the key's state until a sweep
     * retires it, which every call notices: it then looks the key up again. The shared overflow is never
     * remembered, so a key that was untracked gets its own state as soon as the table has room.
     */
    private final class BoundKey implements KeyLimiter {
        private final String key;
        private volatile KeyState state;

        BoundKey(String key) {
            this.key = key;
        }

        @Override
        public RateLimiter limiter() {
            return InMemoryRateLimiter.this;
        }

        @Override
        public String key() {
            return key;
        }

        @Override
        public Decision tryAcquire(long permits) {
            owner.checkOpen();
            Algorithm current = algorithm;
            checkPermits(current, permits);
            KeyState known = state;
            Decision decision = null;
            long now = clock.nanos();
            if (known != null) {
                decision = current.acquire(known, now, permits, true);
            }
            if (decision == null) {
                decision = lookUp(current, now, permits);
            }
            tell(key, permits, decision);
            return decision;
        }

        @Override
        public boolean tryConsume(long permits) {
            owner.checkOpen();
            Algorithm current = algorithm;
            checkPermits(current, permits);
            checkConsumable(current);
            KeyState known = state;
            if (known == null || !listener.quiet()) {
                return tryAcquire(permits).allowed();
            }
            long now = clock.nanos();
            int outcome = current.consume(known, now, permits);
            if (outcome == Algorithm.RETIRED) {
                return tryAcquire(permits).allowed();
            }
            return outcome == Algorithm.GRANTED;
        }

        private Decision lookUp(Algorithm current, long now, long permits) {
            KeyState[] used = new KeyState[1];
            Decision decision = table.decide(key, current, now, permits, true, used, 0);
            state = table.isOverflow(used[0]) ? null : used[0];
            return decision;
        }

        @Override
        public String toString() {
            return "KeyLimiter[" + name + ", " + key + "]";
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LimitPolicy policy() {
        return algorithm.policy;
    }

    @Override
    public LimiterOptions options() {
        return options;
    }

    Algorithm algorithm() {
        return algorithm;
    }

    @Override
    public synchronized void setPolicy(LimitPolicy policy) {
        owner.checkOpen();
        Algorithm previous = algorithm;
        Limits.checkUpdate(name, previous.policy, policy);
        Algorithm next = Algorithm.of(name, policy, clock, owner::isClosed);
        algorithm = next;
        table.adopt(next, previous, clock.nanos());
    }

    private void checkConsumable(Algorithm current) {
        Limits.checkConsumable(name, current.policy);
    }

    void checkKey(String key) {
        Limits.checkKey(key);
    }

    void checkPermits(Algorithm current, long permits) {
        Limits.checkPermits(name, current.policy, permits);
    }

    @Override
    public String toString() {
        return "RateLimiter[" + name + ", " + algorithm.policy + ", " + owner.engine + "]";
    }
}
