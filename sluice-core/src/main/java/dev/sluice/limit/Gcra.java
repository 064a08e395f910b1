package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * The generic cell rate algorithm: requests are spaced {@code period / rate} apart, with a tolerance of
 * {@code burst} permits taken at once.
 *
 * <p>GCRA makes the same decisions as a {@link TokenBucket} of capacity {@code burst} refilled at
 * {@code rate} per {@code period}; it is the form to choose when the limit is thought of as a schedule
 * ("one every 100 ms, bursts of 5") rather than a bucket. Its state is one timestamp per key.
 *
 * @param rate permits per {@code period}, at least 1
 * @param period the period of {@code rate}, positive
 * @param burst the most permits that may go at once, 1 to 10^12; 1 means strictly spaced
 */
public record Gcra(long rate, Duration period, long burst) implements RatePolicy {

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public Gcra {
        Arguments.inRange("rate", rate, 1, Long.MAX_VALUE);
        long periodNanos = Checks.positiveNanos("period", period);
        Arguments.inRange("burst", burst, 1, LimitPolicy.MAX_PERMITS);
        Checks.span("burst", burst, Checks.emissionInterval("rate", rate, periodNanos));
    }

    /**
     * {@code rate} per {@code period} with bursts of up to {@code burst} permits.
     *
     * @param rate permits per {@code period}, at least 1
     * @param period the period of {@code rate}, positive
     * @param burst the most permits that may go at once, 1 to 10^12
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static Gcra of(long rate, Duration period, long burst) {
        return new Gcra(rate, period, burst);
    }

    @Override
    public long limit() {
        return burst;
    }

    /**
     * The nanoseconds between two permits at the steady rate.
     *
     * @return {@code period / rate}, rounded up
     */
    public long nanosPerPermit() {
        return Math.ceilDiv(period.toNanos(), rate);
    }

    /**
     * The policy as the factory that makes it would be called, durations written for people.
     *
     * @return for example {@code Gcra.of(10, 1 s, 5)}
     */
    @Override
    public String toString() {
        return "Gcra.of(" + rate + ", " + DurationText.format(period) + ", " + burst + ")";
    }
}
