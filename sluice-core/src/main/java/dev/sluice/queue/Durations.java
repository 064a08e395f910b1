package dev.sluice.queue;

import java.time.Duration;
import java.util.StringJoiner;

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

    private static final long MINUTE = 60;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;

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
        if (value == null) {
            return "null";
        }
        if (value.isNegative()) {
            // Duration's most negative value has no positive twin; a nanosecond less reads the same
            return "-"
                    + text(value.getSeconds() == Long.MIN_VALUE ? Duration.ofSeconds(Long.MAX_VALUE) : value.negated());
        }
        long seconds = value.getSeconds();
        int nanos = value.getNano();
        if (seconds == 0 && nanos < 1_000) {
            return nanos + " ns";
        }
        if (seconds == 0) {
            return nanos < 1_000_000
                    ? decimal(nanos / 1_000, nanos % 1_000, 3, "µs")
                    : decimal(nanos / 1_000_000, nanos % 1_000_000, 6, "ms");
        }
        if (seconds < MINUTE) {
            return decimal(seconds, nanos, 9, "s");
        }
        StringJoiner parts = new StringJoiner(" ");
        long days = seconds / DAY;
        long hours = seconds % DAY / HOUR;
        long minutes = seconds % HOUR / MINUTE;
        if (days != 0) {
            parts.add(days + " d");
        }
        if (hours != 0) {
            parts.add(hours + " h");
        }
        if (minutes != 0) {
            parts.add(minutes + " min");
        }
        if (seconds % MINUTE != 0 || nanos != 0) {
            parts.add(decimal(seconds % MINUTE, nanos, 9, "s"));
        }
        return parts.toString();
    }

    /** {@code whole.fraction unit}, the fraction written with {@code digits} digits, trailing zeros dropped. */
    private static String decimal(long whole, int fraction, int digits, String unit) {
        if (fraction == 0) {
            return whole + " " + unit;
        }
        String decimals = String.format("%0" + digits + "d", fraction).replaceFirst("0+$", "");
        return whole + "." + decimals + " " + unit;
    }
}
