package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;

/** A rate limiter whose keys live in this JVM. */
final class InMemoryRateLimiter extends InMemoryLimiter<RatePolicy> implements RateLimiter {
    InMemoryRateLimiter(InMemoryLimiters owner, String name, RatePolicy policy, LimiterOptions options) {
        super(owner, name, policy, options);
    }

    @Override
    public void refund(String key, long permits) {
        Algorithm current = checked(key, permits);
        long now = clock.nanos();
        current.refund(table.state(key, current, now), now, permits);
    }

    @Override
    public boolean tryConsume(String key, long permits) {
        Algorithm current = checked(key, permits);
        if (!listener.quiet()) {
            return tryAcquire(key, permits).allowed();
        }
        return table.consume(key, current, clock.nanos(), permits) == Algorithm.GRANTED;
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
}
