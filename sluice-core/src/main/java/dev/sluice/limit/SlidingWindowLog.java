package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * Exactly at most {@code limit} permits in any span of time of length {@code window}.
 *
 * <p>Every grant is remembered until it leaves the window, so memory per key grows with the limit
 * (grants at the same instant share one entry). That is why {@code limit} is capped at one million.
 *
 * @param limit permits per sliding window, 1 to 1,000,000
 * @param window the window length, positive, at most {@link LimitPolicy#MAX_SPAN}
 */
public record SlidingWindowLog(long limit, Duration window) implements RatePolicy {
    /** The largest limit a log accepts: its memory per key grows with the limit. */
    public static final long MAX_LIMIT = 1_000_000;

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public SlidingWindowLog {
        Arguments.inRange("limit", limit, 1, MAX_LIMIT);
        Checks.positiveNanos("window", window);
    }

    /**
     * {@code limit} permits in any span of length {@code window}.
     *
     * @param limit permits per window, 1 to 1,000,000
     * @param window the window length, positive, at most {@link LimitPolicy#MAX_SPAN}
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static SlidingWindowLog of(long limit, Duration window) {
        return new SlidingWindowLog(limit, window);
    }

    /**
     * The policy as the factory that makes it would be called, durations written for people.
     *
     * @return for example {@code SlidingWindowLog.of(100, 1 s)}
     */
    @Override
    public String toString() {
        return "SlidingWindowLog.of(" + limit + ", " + DurationText.format(window) + ")";
    }
}
