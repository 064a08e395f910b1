package dev.sluice.internal.limit;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.SluiceClock;
import java.util.function.BooleanSupplier;

/**
 * The math of one policy, applied to one key's {@link KeyState} at a given time. Every method takes the
 * time as an argument, so the same math serves live calls and tests with literal times.
 */
abstract sealed class Algorithm permits GcraAlgorithm, LockedAlgorithm {
    final String limiter;
    final LimitPolicy policy;
    final long limit;

    Algorithm(String limiter, LimitPolicy policy) {
        this.limiter = limiter;
        this.policy = policy;
        this.limit = policy.limit();
    }

    static Algorithm of(String limiter, LimitPolicy policy, SluiceClock clock) {
        return of(limiter, policy, clock, () -> false);
    }

    /** As {@link #of(String, LimitPolicy, SluiceClock)}; leases release nothing once {@code closed} says so. */
    static Algorithm of(String limiter, LimitPolicy policy, SluiceClock clock, BooleanSupplier closed) {
        return switch (policy) {
            case TokenBucket bucket -> new GcraAlgorithm(limiter, bucket, bucket.nanosPerPermit(), bucket.capacity());
            case Gcra gcra -> new GcraAlgorithm(limiter, gcra, gcra.nanosPerPermit(), gcra.burst());
            case FixedWindow window -> new FixedWindowAlgorithm(limiter, window);
            case SlidingWindowCounter window -> new SlidingCounterAlgorithm(limiter, window);
            case SlidingWindowLog log -> new SlidingLogAlgorithm(limiter, log);
            case ConcurrencyLimit concurrency -> new ConcurrencyAlgorithm(limiter, concurrency, clock, closed);
            case AdaptiveRate adaptive -> throw Limits.adaptiveRefused("limiter '" + limiter + "'", adaptive);
        };
    }

    /** A state of a key that has taken nothing yet. */
    abstract KeyState newState();

    /**
     * Decides whether {@code permits} may go at {@code now}; takes them only if {@code commit}.
     *
     * @return the decision, or null if {@code state} was retired and the key must be looked up again
     */
    abstract Decision acquire(KeyState state, long now, long permits, boolean commit);

    /** {@link #consume} granted the permits. */
    static final int GRANTED = 1;
    /** {@link #consume} denied the permits. */
    static final int DENIED = 0;
    /** {@link #consume} found the state retired: look the key up again. */
    static final int RETIRED = -1;

    /**
     * Takes {@code permits} at {@code now} if allowed, answering only yes or no: {@link #GRANTED}, {@link
     * #DENIED} or {@link #RETIRED}. The same decision as {@link #acquire}, without building a {@link
     * Decision}.
     */
    int consume(KeyState state, long now, long permits) {
        Decision decision = acquire(state, now, permits, true);
        return decision == null ? RETIRED : decision.allowed() ? GRANTED : DENIED;
    }

    /**
     * Returns what is left at {@code now} of the permits that {@code granted} took from {@code state}, and never
     * more: other requests may have used the key since, and the grant's time is read from {@code granted}, not
     * assumed to be {@code now}.
     */
    abstract void undo(KeyState state, long now, long permits, Decision granted);

    /**
     * Gives {@code permits} back to {@code state} at {@code now}, never beyond its full limit, as {@link
     * dev.sluice.limit.RateLimiter#refund} states for each policy. Does nothing to a retired state.
     */
    abstract void refund(KeyState state, long now, long permits);

    /** Puts {@code state} back at its full limit; does nothing to a retired state. */
    abstract void reset(KeyState state);

    /** Whether {@code state} is back at its full limit at {@code now}, so that dropping it changes nothing. */
    abstract boolean isIdle(KeyState state, long now);

    /** Retires {@code state} if it is idle at {@code now}; a retired state is never used again. */
    abstract boolean retireIfIdle(KeyState state, long now);

    /** Makes the fresh state {@code target} at least as used as {@code source}. */
    abstract void copy(KeyState source, KeyState target);

    /** Re-expresses {@code state}, kept under {@code previous}, under this algorithm's policy at {@code now}. */
    abstract void adopt(KeyState state, Algorithm previous, long now);

    /** How long a waiting caller may sleep before asking again, at most. */
    long maxWaitStepNanos() {
        return Long.MAX_VALUE;
    }

    final Decision allowed(long remaining, long resetAt) {
        return new Decision(true, remaining, limit, 0, resetAt, limiter, Lease.none());
    }

    final Decision denied(long remaining, long retryAfter, long resetAt) {
        return new Decision(false, remaining, limit, retryAfter, resetAt, limiter, Lease.none());
    }
}
