package dev.sluice.limit;

import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;

/**
 * The answer to "may these permits go now?" for one key, or for a chain of limits.
 *
 * <p>Every number is exact for the policy and the clock reading the decision was made at; none is
 * estimated.
 *
 * @param allowed whether the permits were granted
 * @param remaining whole permits the key could still take at once right after this decision
 * @param limit the policy's limit ({@link LimitPolicy#limit()}) of the limiter that decided
 * @param retryAfterNanos when denied, the nanoseconds from the decision until the same request would be
 *     allowed if nothing else arrived (always positive); zero when allowed
 * @param resetAtNanos the clock reading, in nanoseconds since the Unix epoch, at which the key is back to
 *     its full limit if nothing else arrives
 * @param limiter the name of the limiter that decided: for a chain, the first layer that denied, or when
 *     allowed, the layer with the fewest permits remaining
 * @param lease what to release when done, for a {@link ConcurrencyLimit}; {@link Lease#none()} otherwise
 * @param basis what the decision rests on: the limit's own state, or an answer given while the engine was
 *     unavailable
 */
public record Decision(
        boolean allowed,
        long remaining,
        long limit,
        long retryAfterNanos,
        long resetAtNanos,
        String limiter,
        Lease lease,
        Basis basis) {

    /** What a decision rests on. */
    public enum Basis {
        /** The limit's state on its engine: the normal case. */
        LIMIT,
        /**
         * The engine was unavailable; a limiter in this process holding a share of the limit decided ({@link
         * WhenUnavailable#fallBack(double)}).
         */
        FALLBACK,
        /** The engine was unavailable; allowed without a limit ({@link WhenUnavailable#failOpen()}). */
        UNAVAILABLE_ALLOWED,
        /**
         * The engine was unavailable; denied ({@link WhenUnavailable#failClosed()}). The retry-after is when
         * the engine will be tried again.
         */
        UNAVAILABLE_DENIED
    }

    /**
     * Checks that the lease and the basis are given.
     *
     * @throws IllegalArgumentException if the lease or the basis is null
     */
    public Decision {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null; use Lease.none() for a decision without one");
        }
        if (basis == null) {
            throw new IllegalArgumentException(
                    "basis must be one of " + Arrays.toString(Basis.values()) + ", was null");
        }
    }

    /**
     * A decision resting on the limit's own state ({@link Basis#LIMIT}).
     *
     * @param allowed whether the permits were granted
     * @param remaining whole permits the key could still take at once right after this decision
     * @param limit the policy's limit
     * @param retryAfterNanos when denied, nanoseconds until the same request would be allowed; zero when allowed
     * @param resetAtNanos when the key is back to its full limit, epoch nanoseconds
     * @param limiter the name of the limiter that decided
     * @param lease what to release when done
     */
    public Decision(
            boolean allowed,
            long remaining,
            long limit,
            long retryAfterNanos,
            long resetAtNanos,
            String limiter,
            Lease lease) {
        this(allowed, remaining, limit, retryAfterNanos, resetAtNanos, limiter, lease, Basis.LIMIT);
    }

    /**
     * Whether the engine was unavailable, so the decision did not rest on the limit's shared state.
     *
     * @return true unless the basis is {@link Basis#LIMIT}
     */
    public boolean degraded() {
        return basis != Basis.LIMIT;
    }

    /**
     * Whether the permits were denied.
     *
     * @return {@code !allowed()}
     */
    public boolean denied() {
        return !allowed;
    }

    /**
     * {@link #retryAfterNanos()} as a duration.
     *
     * @return the retry-after
     */
    public Duration retryAfter() {
        return Duration.ofNanos(retryAfterNanos);
    }

    /**
     * {@link #resetAtNanos()} as an instant.
     *
     * @return the reset time
     */
    public Instant resetAt() {
        return SluiceClock.toInstant(resetAtNanos);
    }

    /**
     * Releases the lease this decision holds; does nothing for policies without leases.
     *
     * @return true if permits were returned by this call
     */
    public boolean release() {
        return lease.release();
    }
}
