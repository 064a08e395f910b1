package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * At most {@code limit} permits per window of {@code window}, windows aligned to the Unix epoch.
 *
 * <p>The cheapest policy, and the least smooth: every aligned window holds at most {@code limit}, but a
 * burst at the end of one window and another at the start of the next pass up to {@code 2 × limit} within
 * one window's length. Prefer {@link SlidingWindowCounter} or {@link SlidingWindowLog} where that matters.
 *
 * @param limit permits per window, 1 to 10^12
 * @param window the window length, positive, at most {@link LimitPolicy#MAX_SPAN}
 */
public record FixedWindow(long limit, Duration window) implements RatePolicy {

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public FixedWindow {
        Arguments.inRange("limit", limit, 1, LimitPolicy.MAX_PERMITS);
        Checks.positiveNanos("window", window);
    }

    /**
     * {@code limit} permits per {@code window}.
     *
     * @param limit permits per window, 1 to 10^12
     * @param window the window length, positive, at most {@link LimitPolicy#MAX_SPAN}
     * @return the policy
     * @throws IllegalArgumentException if an argument is out of range
     */
    public static FixedWindow of(long limit, Duration window) {
        return new FixedWindow(limit, window);
    }

    /**
     * The policy as the factory that makes it would be called, durations written for people.
     *
     * @return for example {@code FixedWindow.of(100, 1 min)}
     */
    @Override
    public String toString() {
        return "FixedWindow.of(" + limit + ", " + DurationText.format(window) + ")";
    }
}
