package dev.sluice.time;

import java.time.Duration;

/**
 * The argument checks of Sluice's value types (policies, options, schedules, and those of its other modules),
 * written once so that every message has one shape: what is wrong, the range allowed, and the value given, with
 * durations as {@link DurationText} writes them ({@code 2.5 s}, not {@code PT2.5S}).
 */
public final class Arguments {
    private Arguments() {}

    /**
     * {@code value}, if from {@code min} to {@code max}.
     *
     * @param what what the value is, as the message names it
     * @param value the value given
     * @param min the least allowed
     * @param max the most allowed
     * @return {@code value}
     * @throws IllegalArgumentException "{what} must be between {min} and {max}, was {value}" otherwise
     */
    public static long inRange(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /**
     * As {@link #inRange(String, long, long, long)}, for an {@code int}.
     *
     * @param what what the value is, as the message names it
     * @param value the value given
     * @param min the least allowed
     * @param max the most allowed
     * @return {@code value}
     * @throws IllegalArgumentException if {@code value} is outside the range
     */
    public static int inRange(String what, int value, int min, int max) {
        return (int) inRange(what, (long) value, min, max);
    }

    /**
     * {@code value}, if above zero and at most {@code max}.
     *
     * @param what what the value is, as the message names it
     * @param value the value given
     * @param max the longest allowed
     * @param maxText {@code max} as the message says it, with why it is the bound if that helps the reader
     * @return {@code value}
     * @throws IllegalArgumentException "{what} must be positive and at most {maxText}, was {value}" otherwise
     */
    public static Duration positive(String what, Duration value, Duration max, String maxText) {
        if (value == null || value.isNegative() || value.isZero() || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(
                    what + " must be positive and at most " + maxText + ", was " + DurationText.format(value));
        }
        return value;
    }

    /**
     * {@code value}, if zero or above and at most {@code max}.
     *
     * @param what what the value is, as the message names it
     * @param value the value given
     * @param max the longest allowed
     * @param maxText {@code max} as the message says it
     * @return {@code value}
     * @throws IllegalArgumentException "{what} must be between 0 and {maxText}, was {value}" otherwise
     */
    public static Duration notNegative(String what, Duration value, Duration max, String maxText) {
        if (value == null || value.isNegative() || value.compareTo(max) > 0) {
            throw new IllegalArgumentException(
                    what + " must be between 0 and " + maxText + ", was " + DurationText.format(value));
        }
        return value;
    }
}
