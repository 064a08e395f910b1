package dev.sluice.queue;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long a failed job waits before its next attempt. Immutable.
 *
 * <p>Attempt numbers start at 1: {@code delay(1, error)} is the wait after the first attempt failed.
 */
public sealed interface Backoff {
    /**
     * The wait before the next attempt.
     *
     * @param failedAttempt the number of the attempt that failed, 1 for the first
     * @param error what that attempt threw; {@code null} if it timed out
     * @return the wait, zero or positive
     */
    Duration delay(int failedAttempt, Throwable error);

    /**
     * Retry at once.
     *
     * @return a backoff of zero, always the same instance
     */
    static Backoff none() {
        return Fixed.NONE;
    }

    /**
     * The same wait after every failure.
     *
     * @param delay the wait, 0 to about 73 years
     * @return the backoff
     * @throws IllegalArgumentException if {@code delay} is null, negative or longer than that
     */
    static Backoff fixed(Duration delay) {
        return new Fixed(delay);
    }

    /**
     * {@code base}, then twice that, four times, ... never more than {@code cap}.
     *
     * @param base the wait after the first failure, positive and at most about 73 years
     * @param cap the longest wait, at least {@code base} and at most about 73 years
     * @return the backoff
     * @throws IllegalArgumentException if either is null, not positive or too long, or {@code cap} is below
     *     {@code base}
     */
    static Backoff exponential(Duration base, Duration cap) {
        return new Exponential(base, cap, false);
    }

    /**
     * As {@link #exponential}, but each wait is drawn uniformly from zero to that value ("full jitter"), so
     * jobs that failed together do not come back together.
     *
     * @param base as {@link #exponential}
     * @param cap as {@link #exponential}
     * @return the backoff
     * @throws IllegalArgumentException as {@link #exponential}
     */
    static Backoff exponentialWithJitter(Duration base, Duration cap) {
        return new Exponential(base, cap, true);
    }

    /**
     * A wait computed by {@code function}. The engine calls it outside its locks; a null or negative result,
     * or an exception, fails the job with a reason that says so.
     *
     * @param function the wait for each failed attempt; thread-safe
     * @return the backoff
     * @throws IllegalArgumentException if {@code function} is null
     */
    static Backoff custom(Function function) {
        return new Custom(function);
    }

    /** A custom backoff. */
    @FunctionalInterface
    interface Function {
        /**
         * The wait before the next attempt.
         *
         * @param failedAttempt the number of the attempt that failed, 1 for the first
         * @param error what that attempt threw; {@code null} if it timed out
         * @return the wait, zero or positive
         */
        Duration delay(int failedAttempt, Throwable error);
    }

    /**
     * A fixed wait.
     *
     * @param interval the wait after every failure
     */
    record Fixed(Duration interval) implements Backoff {
        static final Fixed NONE = new Fixed(Duration.ZERO);

        /**
         * Validates the wait.
         *
         * @param interval 0 to about 73 years
         * @throws IllegalArgumentException if it is null, negative or longer
         */
        public Fixed {
            Durations.notNegative("fixed backoff", interval);
        }

        @Override
        public Duration delay(int failedAttempt, Throwable error) {
            return interval;
        }

        /**
         * How it was made.
         *
         * @return for example {@code Backoff.fixed(2.5 s)}, or {@code Backoff.none()}
         */
        @Override
        public String toString() {
            return interval.isZero() ? "Backoff.none()" : "Backoff.fixed(" + Durations.text(interval) + ")";
        }
    }

    /**
     * A doubling wait with a cap, optionally with full jitter.
     *
     * @param base the wait after the first failure
     * @param cap the longest wait
     * @param jitter whether each wait is drawn uniformly from zero to the doubled value
     */
    record Exponential(Duration base, Duration cap, boolean jitter) implements Backoff {
        /**
         * Validates: base positive, cap at least base.
         *
         * @param base positive, at most about 73 years
         * @param cap at least {@code base}, at most about 73 years
         * @param jitter whether waits are drawn at random
         * @throws IllegalArgumentException if base or cap is null, not positive or too long, or cap is below base
         */
        public Exponential {
            Durations.positive("exponential backoff base", base);
            Durations.positive("exponential backoff cap", cap);
            if (cap.compareTo(base) < 0) {
                throw new IllegalArgumentException("exponential backoff cap must be at least its base "
                        + Durations.text(base) + ", was " + Durations.text(cap));
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

        /**
         * How it was made.
         *
         * @return for example {@code Backoff.exponential(1 s, 5 min)}
         */
        @Override
        public String toString() {
            return "Backoff.exponential" + (jitter ? "WithJitter(" : "(") + Durations.text(base) + ", "
                    + Durations.text(cap) + ")";
        }
    }

    /**
     * A wait computed by a function.
     *
     * @param function the user's function
     */
    record Custom(Function function) implements Backoff {
        /**
         * Validates: the function is not null.
         *
         * @param function the user's function
         * @throws IllegalArgumentException if it is null
         */
        public Custom {
            if (function == null) {
                throw new IllegalArgumentException("custom backoff function must not be null");
            }
        }

        @Override
        public Duration delay(int failedAttempt, Throwable error) {
            return function.delay(failedAttempt, error);
        }

        /**
         * How it was made.
         *
         * @return {@code Backoff.custom(...)} with the function's own {@code toString}
         */
        @Override
        public String toString() {
            return "Backoff.custom(" + function + ")";
        }
    }
}
