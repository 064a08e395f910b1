package dev.sluice.limit;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/** The bounds of the policies' spans; the checks themselves are {@link Arguments}'. */
final class Checks {
    /** The largest span of time a policy may describe: {@link LimitPolicy#MAX_SPAN}. */
    static final long MAX_SPAN_NANOS = 1L << 52;

    private static final String MAX_SPAN_TEXT = DurationText.formatNanos(MAX_SPAN_NANOS)
            + " (LimitPolicy.MAX_SPAN, 2^52 ns: the longest span every engine computes exactly)";

    private Checks() {}

    static long positiveNanos(String what, Duration value) {
        return positiveNanos(what, value, 1);
    }

    /** As {@link #positiveNanos(String, Duration)}, for a span the policy keeps {@code copies} of at once. */
    static long positiveNanos(String what, Duration value, int copies) {
        long max = MAX_SPAN_NANOS / copies;
        String maxText = copies == 1
                ? MAX_SPAN_TEXT
                : DurationText.formatNanos(max) + ", as the policy spans " + copies
                        + " of them and every span is at most " + MAX_SPAN_TEXT;
        return Arguments.positive(what, value, Duration.ofNanos(max), maxText).toNanos();
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
