package dev.sluice.queue;

import java.time.Duration;

/** Duration checks for the queue's options; every message names the bad value and the allowed range. */
final class Durations {
    /** The longest delay, backoff, age or timeout accepted: about 73 years, leaving headroom for epoch nanos. */
    static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE / 4);

    private Durations() {}

    static Duration notNegative(String what, Duration value) {
        if (value == null || value.isNegative() || value.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(what + " must be between 0 and " + MAX + ", was " + value);
        }
        return value;
    }

    static Duration positive(String what, Duration value) {
        if (value == null || value.isNegative() || value.isZero() || value.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(what + " must be positive and at most " + MAX + ", was " + value);
        }
        return value;
    }

    static int inRange(String what, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }
}
