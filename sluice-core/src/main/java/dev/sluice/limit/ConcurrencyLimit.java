package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * At most {@code maxConcurrent} permits held at once per key. A granted {@link Decision} carries a
 * {@link Lease}; releasing it returns the permits. A lease never released expires after
 * {@code leaseTimeout}, so a crashed holder cannot keep permits forever. Applied by a {@link ConcurrencyLimiter}
 * ({@link dev.sluice.Sluice#concurrencyLimiter}).
 *
 * @param maxConcurrent the most permits held at once, 1 to 1,000,000
 * @param leaseTimeout how long a lease lasts unless released first, positive, at most {@link LimitPolicy#MAX_SPAN}
 */
public record ConcurrencyLimit(long maxConcurrent, Duration leaseTimeout) implements LimitPolicy {
    /** The largest {@code maxConcurrent} accepted. */
    public static final long MAX_CONCURRENT = 1_000_000;

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public ConcurrencyLimit {
        Arguments.inRange("maxConcurrent", maxConcurrent, 1, MAX_CONCURRENT);
        Checks.positiveNanos("leaseTimeout", leaseTimeout);
    }

    /**
     * {@code maxConcurrent} permits at once, leases expiring after {@code leaseTimeout}.
     *
     * @param maxConcurrent the most permits held at once, 1 to 1,000,000
     * @param leaseTimeout how long a lease lasts unless released first, positive, at most {@link LimitPolicy#MAX_SPAN}
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static ConcurrencyLimit of(long maxConcurrent, Duration leaseTimeout) {
        return new ConcurrencyLimit(maxConcurrent, leaseTimeout);
    }

    @Override
    public long limit() {
        return maxConcurrent;
    }

    /**
     * The policy as the factory that makes it would be called, durations written for people.
     *
     * @return for example {@code ConcurrencyLimit.of(4, 30 s)}
     */
    @Override
    public String toString() {
        return "ConcurrencyLimit.of(" + maxConcurrent + ", " + DurationText.format(leaseTimeout) + ")";
    }
}
