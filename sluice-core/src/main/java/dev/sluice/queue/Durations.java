package dev.sluice.queue;

import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * Duration checks for the queue's options, and durations written for people: every message names the bad
 * value and the allowed range, and shows a duration as {@link #text} writes it ({@code 2.5 s}, not {@code
 * PT2.5S}).
 */
final class Durations {
    /** The longest delay, backoff, age or timeout accepted: about 73 years, leaving headroom for epoch nanos. */
    static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE / 4);
    /** {@link #MAX} in messages: its exact value would only hide the point. */
    private static final String MAX_TEXT = "about 73 years";

    private Durations() {}

    static Duration notNegative(String what, Duration value) {
        if (value == null || value.isNegative() || value.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(what + " must be between 0 and " + MAX_TEXT + ", was " + text(value));
        }
        return value;
    }

    static Duration positive(String what, Duration value) {
        if (value == null || value.isNegative() || value.isZero() || value.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(
                    what + " must be positive and at most " + MAX_TEXT + ", was " + text(value));
        }
        return value;
    }

    static int inRange(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /**
     * {@code value} for a message or a {@code toString}, exact: below a minute in the largest of ns, µs, ms and
     * s that it reaches, with the decimals it needs ({@code 2.5 ms}); from a minute on in the days, hours,
     * minutes and seconds that are not zero ({@code 1 h 30 min}, {@code 1 min 0.5 s}); negative with a minus
     * sign; {@code "null"} for null. The one place the queue package turns a duration into text.
     */
    static String text(Duration value) {
        return DurationText.format(value);
    }
}
