package dev.sluice.queue;

import dev.sluice.time.Arguments;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * The bound of the queue's durations (delays, backoffs, ages, timeouts), checked by {@link Arguments}, and
 * durations written for people.
 */
final class Durations {
    /** The longest delay, backoff, age or timeout accepted: about 73 years, leaving headroom for epoch nanos. */
    static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE / 4);
    /** {@link #MAX} in messages: its exact value would only hide the point. */
    private static final String MAX_TEXT = "about 73 years";

    private Durations() {}

    static Duration notNegative(String what, Duration value) {
        return Arguments.notNegative(what, value, MAX, MAX_TEXT);
    }

    static Duration positive(String what, Duration value) {
        return Arguments.positive(what, value, MAX, MAX_TEXT);
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
