package dev.sluice.queue;

import java.time.Duration;
import java.util.Arrays;

/**
 * What a {@link Processor} says about the job it ran. A processor that fails throws instead: any exception
 * is retried with the job's backoff while attempts remain, {@link UnrecoverableJobException} fails at once.
 *
 * <p>Five answers, each handled the same way by every engine:
 *
 * <ul>
 *   <li>{@link #done()}, {@link #done(String)}, {@link #done(Object, Codec)}: the job is COMPLETED, with the
 *       result value if one is given; it uses one attempt;
 *   <li>{@link #runAgainAfter(Duration)}: the job is not finished and goes to DELAYED, to run again after the
 *       delay (BullMQ's move-to-delayed); no attempt is used, it is no failure and nothing pauses;
 *   <li>{@link #rateLimited(Scope, Duration)}: something downstream said "slow down"; the job goes back to
 *       waiting, no attempt is used, and its group (or the queue) pauses;
 *   <li>{@link #overloaded(Scope, Duration)}: the downstream failed in a way that says it has too much to do (a
 *       timeout, a 503); the job runs again after the delay without using an attempt, and nothing pauses.
 * </ul>
 *
 * <p>Where the scope has an {@link dev.sluice.limit.AdaptiveRate}, both of the last two also cut that rate, once
 * however many arrive at once.
 */
public sealed interface Result {
    /**
     * The job is done, with no result value.
     *
     * @return the answer
     */
    static Result done() {
        return Done.EMPTY;
    }

    /**
     * The job is done, and {@code value} is kept as its result, encoded as UTF-8 (for instance a JSON
     * document); read it with {@link Job#result()}.
     *
     * @param value the result; {@code null} for none
     * @return the answer
     * @throws IllegalArgumentException if {@code value} holds an unpaired surrogate, which UTF-8 cannot carry
     */
    static Result done(String value) {
        return value == null ? Done.EMPTY : done(value, Codec.utf8());
    }

    /**
     * The job is done, and {@code value}, encoded by {@code codec} when this is called, is kept as its result.
     * Read it with {@link Job#result(Codec)} and an equal codec. A processor that calls this with a value the
     * codec cannot encode fails its attempt with the codec's reason, as any exception it throws would.
     *
     * @param value the result
     * @param codec how the result is stored; thread-safe, {@code decode(encode(v))} equal to {@code v}
     * @param <R> the result type
     * @return the answer
     * @throws IllegalArgumentException if the codec is null, or cannot encode the value
     */
    static <R> Result done(R value, Codec<R> codec) {
        return new Done(ResultCoding.encode(codec, value));
    }

    /**
     * The job is not finished yet: it goes to DELAYED and runs again once {@code delay} has passed (zero: it
     * goes back to waiting, behind the jobs of its group that are ready). The attempt is recorded with the
     * outcome {@link Job.Attempt.Outcome#RESCHEDULED}; it does not count against the job's attempts, is not a
     * failure, does not pause the group or the queue, and can be returned any number of times. For polling
     * something that is not ready yet (an export being built, a payment being settled). With no delay the job is
     * ready again at once, so {@link Worker#runDue()} runs it again in the same call.
     *
     * @param delay how long until the job may run again, 0 to about 73 years
     * @return the answer
     * @throws IllegalArgumentException if {@code delay} is null, negative or longer than that
     */
    static Result runAgainAfter(Duration delay) {
        return new RunAgain(delay);
    }

    /**
     * The job could not run because something downstream is rate-limiting it (an HTTP 429 with Retry-After,
     * say). The job goes back to waiting without using an attempt, and {@code scope} pauses for {@code
     * retryAfter}: only the job's group, or the whole queue. A pause returned at {@code t} ends at exactly
     * {@code t + retryAfter}: jobs may start at that instant, none up to the nanosecond before.
     *
     * @param scope what pauses
     * @param retryAfter how long it pauses, 0 to about 73 years
     * @return the answer
     * @throws IllegalArgumentException if scope is null, or retryAfter is null, negative or longer than that
     */
    static Result rateLimited(Scope scope, Duration retryAfter) {
        return new RateLimited(scope, retryAfter);
    }

    /**
     * The job could not run because the downstream is overloaded: it timed out, or answered 503 or another sign of
     * too much load. The job runs again once {@code retryAfter} has passed, and at most a fifth of it later, at a point
     * fixed by the job's id and its refusals so that jobs refused together come back spread (DELAYED until then),
     * without using an attempt; the attempt is recorded as {@link Job.Attempt.Outcome#RATE_LIMITED} and counts against the job's
     * {@link JobOptions#maxRateLimits()}, as a rate limit does. Nothing pauses. An {@link
     * dev.sluice.limit.AdaptiveRate} of {@code scope} (the job's group's, or the queue's) is cut; without one, this
     * only delays the job. Listeners and metrics hear it as a rate limit of {@code scope} ({@link
     * QueueListener#onRateLimited}).
     *
     * @param scope whose adaptive rate the overload cuts
     * @param retryAfter how long until the job may run again, 0 to about 73 years
     * @return the answer
     * @throws IllegalArgumentException if scope is null, or retryAfter is null, negative or longer than that
     */
    static Result overloaded(Scope scope, Duration retryAfter) {
        return new Overloaded(scope, retryAfter);
    }

    /**
     * A completed job, with its result encoded, or {@code null} for none.
     *
     * @param value the encoded result; {@code null} for none
     */
    record Done(byte[] value) implements Result {
        static final Done EMPTY = new Done(null);

        /**
         * Copies the bytes, so the answer cannot change.
         *
         * @param value the encoded result; {@code null} for none
         */
        public Done {
            value = value == null ? null : value.clone();
        }

        /**
         * The encoded result.
         *
         * @return a copy of the bytes; {@code null} for none
         */
        @Override
        public byte[] value() {
            return value == null ? null : value.clone();
        }

        /**
         * Equal to another {@code Done} with the same bytes.
         *
         * @param other the object to compare with
         * @return whether {@code other} is a {@code Done} with an equal result
         */
        @Override
        public boolean equals(Object other) {
            return other instanceof Done done && Arrays.equals(value, done.value);
        }

        /**
         * A hash of the bytes.
         *
         * @return the hash code
         */
        @Override
        public int hashCode() {
            return Arrays.hashCode(value);
        }

        /**
         * The answer for people, with the size of the result but not its bytes.
         *
         * @return {@code Result.done()}, or for example {@code Result.done(12 bytes)}
         */
        @Override
        public String toString() {
            return value == null ? "Result.done()" : "Result.done(" + value.length + " bytes)";
        }
    }

    /**
     * A job to run again later, with no attempt used.
     *
     * @param delay how long until it may run again
     */
    record RunAgain(Duration delay) implements Result {
        /**
         * Validates the delay.
         *
         * @param delay 0 to about 73 years
         * @throws IllegalArgumentException if it is null, negative or longer
         */
        public RunAgain {
            Durations.notNegative("runAgainAfter delay", delay);
        }

        /**
         * The answer for people.
         *
         * @return for example {@code Result.runAgainAfter(2.5 s)}
         */
        @Override
        public String toString() {
            return "Result.runAgainAfter(" + Durations.text(delay) + ")";
        }
    }

    /**
     * A rate-limited job: what pauses, and for how long.
     *
     * @param scope what pauses
     * @param retryAfter for how long
     */
    record RateLimited(Scope scope, Duration retryAfter) implements Result {
        /**
         * Validates: scope not null, retryAfter zero or positive.
         *
         * @param scope what pauses
         * @param retryAfter for how long, 0 to about 73 years
         * @throws IllegalArgumentException if scope is null, or retryAfter is null, negative or longer
         */
        public RateLimited {
            if (scope == null) {
                throw new IllegalArgumentException("rate-limit scope must be GROUP or QUEUE, was null");
            }
            Durations.notNegative("retryAfter", retryAfter);
        }

        /**
         * The answer for people.
         *
         * @return for example {@code Result.rateLimited(GROUP, 30 s)}
         */
        @Override
        public String toString() {
            return "Result.rateLimited(" + scope + ", " + Durations.text(retryAfter) + ")";
        }
    }

    /**
     * A job the overloaded downstream could not run: whose adaptive rate is cut, and when it runs again.
     *
     * @param scope whose adaptive rate is cut
     * @param retryAfter how long until the job may run again
     */
    record Overloaded(Scope scope, Duration retryAfter) implements Result {
        /**
         * Validates: scope not null, retryAfter zero or positive.
         *
         * @param scope whose adaptive rate is cut
         * @param retryAfter how long until the job may run again, 0 to about 73 years
         * @throws IllegalArgumentException if scope is null, or retryAfter is null, negative or longer
         */
        public Overloaded {
            if (scope == null) {
                throw new IllegalArgumentException("overload scope must be GROUP or QUEUE, was null");
            }
            Durations.notNegative("retryAfter", retryAfter);
        }

        /**
         * The answer for people.
         *
         * @return for example {@code Result.overloaded(GROUP, 2 s)}
         */
        @Override
        public String toString() {
            return "Result.overloaded(" + scope + ", " + Durations.text(retryAfter) + ")";
        }
    }

    /** What a rate limit or an overload reported by a processor concerns. */
    enum Scope {
        /** Only the job's group: other tenants go on. An ungrouped job pauses the ungrouped jobs. */
        GROUP,
        /** Every job of the queue. */
        QUEUE
    }
}
