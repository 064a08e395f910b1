package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * A token bucket: up to {@code capacity} permits at once, refilled continuously at {@code refillTokens}
 * per {@code refillPeriod}.
 *
 * <p>Refill is continuous, not in whole intervals: with 10 per second, one permit comes back every 100 ms.
 * Over any span of time {@code t}, a key is granted at most {@code capacity + rate × t} permits. The time
 * one permit takes to come back is rounded up to the nanosecond, so the rate is never exceeded.
 *
 * @param capacity the most permits a key can take at once, 1 to 10^12
 * @param refillTokens how many permits come back per {@code refillPeriod}, at least 1
 * @param refillPeriod the period over which {@code refillTokens} come back, positive
 */
public record TokenBucket(long capacity, long refillTokens, Duration refillPeriod) implements RatePolicy {
    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public TokenBucket {
        Arguments.inRange("capacity", capacity, 1, LimitPolicy.MAX_PERMITS);
        Arguments.inRange("refillTokens", refillTokens, 1, Long.MAX_VALUE);
        long period = Checks.positiveNanos("refillPeriod", refillPeriod);
        Checks.span("capacity", capacity, Checks.emissionInterval("refill rate", refillTokens, period));
    }

    /**
     * A bucket of {@code capacity} permits that refills completely once per {@code period}.
     *
     * @param capacity the most permits a key can take at once, 1 to 10^12
     * @param period the time an empty bucket takes to refill, positive
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static TokenBucket of(long capacity, Duration period) {
        return new TokenBucket(capacity, capacity, period);
    }

    /**
     * A bucket of {@code capacity} permits refilled at {@code refillTokens} per {@code refillPeriod}.
     *
     * @param capacity the most permits a key can take at once, 1 to 10^12
     * @param refillTokens how many permits come back per {@code refillPeriod}, at least 1
     * @param refillPeriod the period over which {@code refillTokens} come back, positive
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static TokenBucket of(long capacity, long refillTokens, Duration refillPeriod) {
        return new TokenBucket(capacity, refillTokens, refillPeriod);
    }

    /**
     * A bucket of {@code permitsPerSecond} permits that refills completely every second.
     *
     * @param permitsPerSecond the capacity and the rate per second, 1 to 10^12
     * @return the policy
     * @throws IllegalArgumentException if the rate is out of range
     */
    public static TokenBucket perSecond(long permitsPerSecond) {
        return of(permitsPerSecond, Duration.ofSeconds(1));
    }

    @Override
    public long limit() {
        return capacity;
    }

    /**
     * The nanoseconds one permit takes to come back.
     *
     * @return {@code refillPeriod / refillTokens}, rounded up
     */
    public long nanosPerPermit() {
        return Math.ceilDiv(refillPeriod.toNanos(), refillTokens);
    }

    /**
     * The policy as the factory that makes it would be called, durations written for people.
     *
     * @return for example {@code TokenBucket.of(10, 10, 1 s)}
     */
    @Override
    public String toString() {
        return "TokenBucket.of(" + capacity + ", " + refillTokens + ", " + DurationText.format(refillPeriod) + ")";
    }
}
