package dev.sluice.queue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a failed job waits before its next attempt. Immutable.
 *
 * <p>Attempt numbers start at 1: {@code delay(1, error)} is the wait after the first attempt failed.
 */
public sealed interface Backoff {
    /** The wait before the attempt after {@code failedAttempt} failed with {@code error}; never negative. */
    Duration delay(int failedAttempt, Throwable error);

    /** Retry at once. */
    static Backoff none() {
        return Fixed.NONE;
    }

    /** The same wait after every failure. */
    static Backoff fixed(Duration delay) {
        return new Fixed(delay);
    }

    /** {@code base}, then twice that, four times, ... never more than {@code cap}. */
    static Backoff exponential(Duration base, Duration cap) {
        return new Exponential(base, cap, false);
    }

    /**
     * As {@link #exponential}, but each wait is drawn uniformly from zero to that value ("full jitter"), so
     * jobs that failed together do not come back together.
     */
    static Backoff exponentialWithJitter(Duration base, Duration cap) {
        return new Exponential(base, cap, true);
    }

    /** A wait computed by {@code function}; a null or negative result fails the job with a clear reason. */
    static Backoff custom(Function function) {
        return new Custom(function);
    }

    /** A custom backoff. */
    @FunctionalInterface
    interface Function {
        /** The wait before the attempt after {@code failedAttempt} failed with {@code error}. */
        Duration delay(int failedAttempt, Throwable error);
    }

    /** A fixed wait. */
    record Fixed(Duration interval) implements Backoff {
        static final Fixed NONE = new Fixed(Duration.ZERO);

        /** Validates: the wait is zero or positive. */
        public Fixed {
            Durations.notNegative("fixed backoff", interval);
        }

        @Override
        public Duration delay(int failedAttempt, Throwable error) {
            return interval;
        }
    }

    /** A doubling wait with a cap, optionally with full jitter. */
    record Exponential(Duration base, Duration cap, boolean jitter) implements Backoff {
        /** Validates: base positive, cap at least base. */
        public Exponential {
            Durations.positive("exponential backoff base", base);
            Durations.positive("exponential backoff cap", cap);
            if (cap.compareTo(base) < 0) {
                throw new IllegalArgumentException(
                        "exponential backoff cap must be at least its base " + base + ", was " + cap);
            }
        }

        @Override
        public Duration delay(int failedAttempt, Throwable error) {
            long baseNanos = base.toNanos();
            long capNanos = cap.toNanos();
            int doublings = failedAttempt > 1 ? failedAttempt - 1 : 0; // not max(0, a - 1): MIN_VALUE - 1 wraps
            long nanos = doublings >= 62 || baseNanos > (capNanos >> doublings) ? capNanos : baseNanos << doublings;
            if (jitter) {
                nanos = ThreadLocalRandom.current().nextLong(nanos + 1);
            }
            return Duration.ofNanos(nanos);
        }
    }

    /** A wait computed by a function. */
    record Custom(Function function) implements Backoff {
        /** Validates: the function is not null. */
        public Custom {
            if (function == null) {
                throw new IllegalArgumentException("custom backoff function must not be null");
            }
        }

        @Override
        public Duration delay(int failedAttempt, Throwable error) {
            return function.delay(failedAttempt, error);
        }
    }
}
