package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * At most {@code limit} permits per {@code window}, estimated from two counters: the current aligned
 * window's count plus the previous window's count weighted by how much of it the sliding window still
 * covers.
 *
 * <p>Memory is constant per key. Every aligned window holds at most {@code limit}; a sliding window of the
 * same length can hold somewhat more when the previous window's permits were taken late in it (the
 * weighting assumes they were spread evenly). Use {@link SlidingWindowLog} for an exact sliding window.
 *
 * @param limit permits per window, 1 to 10^12
 * @param window the window length, positive, at most half of {@link LimitPolicy#MAX_SPAN} (it keeps two)
 */
public record SlidingWindowCounter(long limit, Duration window) implements RatePolicy {

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public SlidingWindowCounter {
        Arguments.inRange("limit", limit, 1, LimitPolicy.MAX_PERMITS);
        Checks.positiveNanos("window", window, 2);
    }

    /**
     * {@code limit} permits per sliding {@code window}.
     *
     * @param limit permits per window, 1 to 10^12
     * @param window the window length, positive, at most half of {@link LimitPolicy#MAX_SPAN}
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static SlidingWindowCounter of(long limit, Duration window) {
        return new SlidingWindowCounter(limit, window);
    }

    /**
     * The policy as the factory that makes it would be called, durations written for people.
     *
     * @return for example {@code SlidingWindowCounter.of(100, 1 min)}
     */
    @Override
    public String toString() {
        return "SlidingWindowCounter.of(" + limit + ", " + DurationText.format(window) + ")";
    }
}
