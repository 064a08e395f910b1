package dev.sluice.limit;

import dev.sluice.time.Clock;
import java.time.Duration;
import java.time.Instant;

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
 * @param lease what to release when done, for a {@link ConcurrencyLimit}; {@link Lease#NONE} otherwise
 */
public record Decision(
        boolean allowed,
        long remaining,
        long limit,
        long retryAfterNanos,
        long resetAtNanos,
        String limiter,
        Lease lease) {

    /** Whether the permits were denied. */
    public boolean denied() {
        return !allowed;
    }

    /** {@link #retryAfterNanos()} as a duration. */
    public Duration retryAfter() {
        return Duration.ofNanos(retryAfterNanos);
    }

    /** {@link #resetAtNanos()} as an instant. */
    public Instant resetAt() {
        return Clock.toInstant(resetAtNanos);
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
