package dev.sluice.internal.limit;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** What every engine's limiters and chains check and compute the same way. */
public final class Limits {
    private Limits() {}

    /** The error for layer {@code index} of a chain, whose limiter {@code limiter} belongs to another engine. */
    public static IllegalArgumentException foreignLayer(int index, String limiter) {
        return new IllegalArgumentException("layer " + index + " (" + limiter + ") belongs to another engine;"
                + " a chain's limiters must all come from the engine that builds it");
    }

    /** Fails unless {@code key} has 1 to {@link RateLimiter#MAX_KEY_LENGTH} characters. */
    public static void checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key must be 1 to " + RateLimiter.MAX_KEY_LENGTH + " characters, was "
                    + (key == null ? "null" : "empty"));
        }
        if (key.length() > RateLimiter.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key must be 1 to " + RateLimiter.MAX_KEY_LENGTH + " characters, was "
                    + key.length() + " characters");
        }
    }

    /** Fails unless {@code permits} is between 1 and the limit of {@code policy}. */
    public static void checkPermits(String limiter, LimitPolicy policy, long permits) {
        if (permits < 1 || permits > policy.limit()) {
            throw new IllegalArgumentException("permits must be between 1 and " + policy.limit() + " (the limit of '"
                    + limiter + "'), was " + permits);
        }
    }

    /** Fails unless {@code next} is a policy {@code current} may change to: not null, and of the same kind. */
    public static void checkUpdate(String limiter, LimitPolicy current, LimitPolicy next) {
        if (next == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        if (current.getClass() != next.getClass()) {
            throw new IllegalArgumentException("limiter '" + limiter + "' has a "
                    + current.getClass().getSimpleName()
                    + " policy and cannot change to a " + next.getClass().getSimpleName()
                    + "; allowed: another " + current.getClass().getSimpleName());
        }
    }

    /** Fails if {@code policy} grants leases, which only a {@link Decision} can release. */
    public static void checkConsumable(String limiter, LimitPolicy policy) {
        if (policy instanceof ConcurrencyLimit) {
            throw new IllegalStateException("limiter '" + limiter + "' has a " + policy
                    + ": its permits are leases to release, so use tryAcquire and release the decision");
        }
    }

    /** {@code key} of {@code limiter}, bound: every call goes to the limiter with that key. */
    public static KeyLimiter bind(RateLimiter limiter, String key) {
        checkKey(key);
        return new KeyLimiter() {
            @Override
            public RateLimiter limiter() {
                return limiter;
            }

            @Override
            public String key() {
                return key;
            }

            @Override
            public Decision tryAcquire(long permits) {
                return limiter.tryAcquire(key, permits);
            }

            @Override
            public boolean tryConsume(long permits) {
                return limiter.tryConsume(key, permits);
            }

            @Override
            public Decision acquire(long permits, Duration timeout) throws InterruptedException {
                return limiter.acquire(key, permits, timeout);
            }

            @Override
            public CompletableFuture<Decision> acquireAsync(long permits, Duration timeout) {
                return limiter.acquireAsync(key, permits, timeout);
            }

            @Override
            public String toString() {
                return "KeyLimiter[" + limiter.name() + ", " + key + "]";
            }
        };
    }

    /**
     * A chain's denial: the first denying layer's decision, with the longest retry-after of the layers that
     * denied, which is when the whole chain would allow the request.
     */
    public static Decision chainDenial(Decision first, long longestRetryAfter) {
        return new Decision(
                false,
                first.remaining(),
                first.limit(),
                longestRetryAfter,
                first.resetAtNanos(),
                first.limiter(),
                Lease.NONE,
                first.basis());
    }

    /** A chain's grant: the decision of the layer with the fewest permits left, holding every layer's lease. */
    public static Decision chainGrant(Decision[] granted) {
        int tightest = 0;
        List<Lease> leases = new ArrayList<>(0);
        for (int i = 0; i < granted.length; i++) {
            if (granted[i].remaining() < granted[tightest].remaining()) {
                tightest = i;
            }
            if (granted[i].lease() != Lease.NONE) {
                leases.add(granted[i].lease());
            }
        }
        Decision chosen = granted[tightest];
        return new Decision(
                true,
                chosen.remaining(),
                chosen.limit(),
                0,
                chosen.resetAtNanos(),
                chosen.limiter(),
                allOf(leases),
                chosen.basis());
    }

    private static Lease allOf(List<Lease> leases) {
        if (leases.isEmpty()) {
            return Lease.NONE;
        }
        if (leases.size() == 1) {
            return leases.get(0);
        }
        long expiry = leases.stream().mapToLong(Lease::expiresAtNanos).min().orElseThrow();
        return new Lease() {
            @Override
            public boolean release() {
                boolean any = false;
                for (Lease lease : leases) {
                    any |= lease.release();
                }
                return any;
            }

            @Override
            public long expiresAtNanos() {
                return expiry;
            }
        };
    }
}
