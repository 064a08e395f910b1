package dev.sluice.limit;

import dev.sluice.time.DurationText;
import java.time.Duration;

/** Argument checks shared by the policies; every message names the bad value and the allowed range. */
final class Checks {
    /** The largest span of time a policy may describe: {@link LimitPolicy#MAX_SPAN}. */
    static final long MAX_SPAN_NANOS = 1L << 52;

    private static final String MAX_SPAN_TEXT = DurationText.formatNanos(MAX_SPAN_NANOS)
            + " (LimitPolicy.MAX_SPAN, 2^52 ns: the longest span every engine computes exactly)";

    private Checks() {}

    static long inRange(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static long positiveNanos(String what, Duration value) {
        return positiveNanos(what, value, 1);
    }

    /** As {@link #positiveNanos(String, Duration)}, for a span the policy keeps {@code copies} of at once. */
    static long positiveNanos(String what, Duration value, int copies) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must be a positive duration, was null");
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(
                    what + " must be a positive duration, was " + DurationText.format(value));
        }
        if (value.compareTo(Duration.ofNanos(MAX_SPAN_NANOS / copies)) > 0) {
            throw new IllegalArgumentException(what + " must be at most "
                    + (copies == 1
                            ? MAX_SPAN_TEXT
                            : DurationText.formatNanos(MAX_SPAN_NANOS / copies) + ", as the policy spans " + copies
                                    + " of them and every span is at most " + MAX_SPAN_TEXT)
                    + ", was " + DurationText.format(value));
        }
        return value.toNanos();
    }

    /** The nanoseconds one permit takes to come back at {@code permits} per {@code periodNanos}, rounded up. */
    static long emissionInterval(String what, long permits, long periodNanos) {
        if (permits > periodNanos) {
            throw new IllegalArgumentException(what + " of " + permits + " per " + DurationText.formatNanos(periodNanos)
                    + " is faster than the finest the clock can express; allowed: at most 1 permit per nanosecond");
        }
        return Math.ceilDiv(periodNanos, permits);
    }

    /** The time {@code permits} permits take to come back; fails if that span overflows. */
    static long span(String what, long permits, long intervalNanos) {
        long span;
        try {
            span = Math.multiplyExact(permits, intervalNanos);
        } catch (ArithmeticException overflow) {
            span = Long.MAX_VALUE;
        }
        if (span > MAX_SPAN_NANOS) {
            throw new IllegalArgumentException(what + " of " + permits + " permits at one per "
                    + DurationText.formatNanos(intervalNanos) + " takes longer than "
                    + MAX_SPAN_TEXT + " to refill; allowed: at most that");
        }
        return span;
    }
}
