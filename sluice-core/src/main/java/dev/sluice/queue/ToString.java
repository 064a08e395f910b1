package dev.sluice.queue;

import java.time.Duration;

/** {@code Type{name=value, ...}} for the queue's values, listing only the values that are set. */
final class ToString {
    private final StringBuilder text;
    private boolean empty = true;

    ToString(String type) {
        text = new StringBuilder(type).append('{');
    }

    /** Adds {@code name=value}, unless {@code value} is null. */
    ToString add(String name, Object value) {
        if (value != null) {
            text.append(empty ? "" : ", ").append(name).append('=').append(value);
            empty = false;
        }
        return this;
    }

    /** Adds {@code name=} and the duration written for people, unless it is null. */
    ToString add(String name, Duration value) {
        return add(name, value == null ? null : (Object) Durations.text(value));
    }

    /** Adds {@code name=value}, unless it is {@link Integer#MAX_VALUE}, which stands for no bound. */
    ToString addBound(String name, int value) {
        return add(name, value == Integer.MAX_VALUE ? null : (Object) value);
    }

    @Override
    public String toString() {
        return text + "}";
    }
}
