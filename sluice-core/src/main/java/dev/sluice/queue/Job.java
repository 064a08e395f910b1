package dev.sluice.queue;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of one job, taken when it was read: later changes to the job do not change it.
 *
 * @param id the job's id, unique in its queue
 * @param name what kind of job it is, chosen by the producer
 * @param payload the decoded payload; {@code null} if the queue's codec cannot decode it (see {@link
 *     JobQueue#payloadBytes})
 * @param group the group (tenant) it belongs to; {@code null} for ungrouped jobs
 * @param state its state when read
 * @param options its resolved options
 * @param attemptsMade attempts that ran to an outcome (completed, failed, timed out); a rate-limited return,
 *     a {@link Result#runAgainAfter run-again} return or a worker's close does not count
 * @param rateLimits how often it went back to waiting because it was rate-limited
 * @param createdAt when it was added
 * @param runAt when a delayed job becomes ready; {@code null} unless {@link JobState#DELAYED}
 * @param startedAt when its latest attempt started; {@code null} if it never ran
 * @param finishedAt when it completed or failed for good; {@code null} before
 * @param progress the last progress its processor reported in its latest attempt, 0 to 100 ({@link
 *     JobContext#progress}); 0 when an attempt starts
 * @param encodedResult the result the processor returned when it completed, as its codec encoded it ({@link
 *     Result#done(Object, Codec)}; UTF-8 for {@link Result#done(String)}); {@code null} before, or if it
 *     returned none. Read it with {@link #result(Codec)}
 * @param failure why it failed for good; {@code null} unless {@link JobState#FAILED}
 * @param attempts its attempts so far, oldest first: every one up to {@link #MAX_ATTEMPTS_RECORDED}; beyond that
 *     the first and the latest ones (the numbers show the gap), so that a job that runs again for ever, or
 *     keeps being rate-limited, holds bounded memory
 * @param <T> the payload type
 */
public record Job<T>(
        String id,
        String name,
        T payload,
        String group,
        JobState state,
        JobOptions options,
        int attemptsMade,
        int rateLimits,
        Instant createdAt,
        Instant runAt,
        Instant startedAt,
        Instant finishedAt,
        int progress,
        byte[] encodedResult,
        Failure failure,
        List<Attempt> attempts) {

    /** How many attempts a job keeps a record of: the first, and the latest beyond it. */
    public static final int MAX_ATTEMPTS_RECORDED = 100;

    /**
     * Copies the attempt list and the result, so the snapshot stays unchanged.
     *
     * @throws IllegalArgumentException if {@code attempts} is null or holds a null
     */
    public Job {
        attempts = copyOf(id, attempts);
        encodedResult = encodedResult == null ? null : encodedResult.clone();
    }

    /**
     * An unmodifiable copy of {@code attempts} (the list itself if it is one), allocating nothing else: every
     * snapshot of a job takes one, and {@link JobQueue#add} returns a snapshot.
     */
    private static List<Attempt> copyOf(String id, List<Attempt> attempts) {
        try {
            return List.copyOf(attempts);
        } catch (NullPointerException e) {
            throw new IllegalArgumentException(
                    "attempts of job '" + id + "' must be a list without nulls (List.of() for none), was " + attempts);
        }
    }

    /**
     * Equal to another job with equal components, the encoded result compared by its bytes.
     *
     * @param other the object to compare with
     * @return whether {@code other} is the same job in the same state
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof Job<?> job
                && Objects.equals(id, job.id)
                && Objects.equals(name, job.name)
                && Objects.equals(payload, job.payload)
                && Objects.equals(group, job.group)
                && state == job.state
                && Objects.equals(options, job.options)
                && attemptsMade == job.attemptsMade
                && rateLimits == job.rateLimits
                && Objects.equals(createdAt, job.createdAt)
                && Objects.equals(runAt, job.runAt)
                && Objects.equals(startedAt, job.startedAt)
                && Objects.equals(finishedAt, job.finishedAt)
                && progress == job.progress
                && Arrays.equals(encodedResult, job.encodedResult)
                && Objects.equals(failure, job.failure)
                && attempts.equals(job.attempts);
    }

    /**
     * A hash of the components, the encoded result hashed by its bytes.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return Objects.hash(
                                id,
                                name,
                                payload,
                                group,
                                state,
                                options,
                                attemptsMade,
                                rateLimits,
                                createdAt,
                                runAt,
                                startedAt,
                                finishedAt,
                                progress,
                                failure,
                                attempts)
                        * 31
                + Arrays.hashCode(encodedResult);
    }

    /**
     * The encoded result.
     *
     * @return a copy of the bytes; {@code null} if the job has no result
     */
    @Override
    public byte[] encodedResult() {
        return encodedResult == null ? null : encodedResult.clone();
    }

    /**
     * The result as text: what {@link Result#done(String)} stored, decoded as UTF-8. For a result stored with
     * another codec, use {@link #result(Codec)}.
     *
     * @return the result; {@code null} unless the job completed with a result
     */
    public String result() {
        return ResultCoding.decode(Codec.utf8(), encodedResult, id);
    }

    /**
     * The result decoded by {@code codec}, which should equal the one the processor passed to {@link
     * Result#done(Object, Codec)}.
     *
     * @param codec how the result was encoded
     * @param <R> the result type
     * @return the result; {@code null} unless the job completed with a result
     * @throws IllegalArgumentException if the codec is null or cannot decode the result (naming the job)
     */
    public <R> R result(Codec<R> codec) {
        return ResultCoding.decode(codec, encodedResult, id);
    }

    /**
     * The job for people: id, name, group, state, counts, times, the size of its result and its failure's
     * reason. Neither the payload nor the result is shown (they may be large, or secret); read them with
     * {@link #payload()} and {@link #result(Codec)}.
     *
     * @return for example {@code Job{id=42, name=email, state=COMPLETED, attemptsMade=1, createdAt=..., result=12
     *     bytes}}
     */
    @Override
    public String toString() {
        return new ToString("Job")
                .add("id", id)
                .add("name", name)
                .add("group", group)
                .add("state", state)
                .add("attemptsMade", attemptsMade)
                .add("rateLimits", rateLimits == 0 ? null : rateLimits)
                .add("progress", progress == 0 ? null : progress)
                .add("createdAt", createdAt)
                .add("runAt", runAt)
                .add("startedAt", startedAt)
                .add("finishedAt", finishedAt)
                .add("result", encodedResult == null ? null : encodedResult.length + " bytes")
                .add("failure", failure == null ? null : failure.reason())
                .toString();
    }

    /**
     * Why a job failed.
     *
     * @param reason a message that says what went wrong
     * @param exceptionClass the class of the exception thrown, or {@code null} if none was (a timeout)
     * @param stackTrace the stack trace of that exception, or {@code null}
     */
    public record Failure(String reason, String exceptionClass, String stackTrace) {
        /**
         * The failure for people, without the stack trace.
         *
         * @return for example {@code Failure{reason=card declined, exceptionClass=java.lang.IllegalStateException}}
         */
        @Override
        public String toString() {
            return new ToString("Failure")
                    .add("reason", reason)
                    .add("exceptionClass", exceptionClass)
                    .toString();
        }
    }

    /**
     * One run of a job.
     *
     * @param number 1 for the first run
     * @param startedAt when it started
     * @param finishedAt when it ended; {@code null} while it runs
     * @param outcome how it ended; {@code null} while it runs
     * @param error what went wrong, or {@code null}
     */
    public record Attempt(int number, Instant startedAt, Instant finishedAt, Outcome outcome, String error) {
        /** How an attempt ended. */
        public enum Outcome {
            /** The processor returned {@link Result#done}. */
            COMPLETED,
            /** The processor threw, or returned something invalid. */
            FAILED,
            /** It ran longer than the job's timeout. */
            TIMED_OUT,
            /** The processor said it was rate-limited; the job went back to waiting, no attempt used. */
            RATE_LIMITED,
            /**
             * The processor asked to run again later ({@link Result#runAgainAfter}); the job went to DELAYED
             * (or, with no delay, to waiting), no attempt used.
             */
            RESCHEDULED,
            /** Its worker closed before it finished; the job went back to waiting, no attempt used. */
            INTERRUPTED
        }
    }
}
