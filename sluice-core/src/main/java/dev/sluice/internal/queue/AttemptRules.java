package dev.sluice.internal.queue;

import dev.sluice.queue.Backoff;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * What follows an attempt, as functions of the job's counts and {@code now} (engine nanoseconds): retried at
 * which time, failed for good, or sent back by a rate limit until when. Every engine applies these rules.
 */
public final class AttemptRules {
    private AttemptRules() {}

    /**
     * The outcome of one ended attempt.
     *
     * @param kind what the job does next
     * @param at when a retry becomes ready (equal to {@code now}: at once), or when a rate limit's pause ends
     * @param reason why the job failed for good; null otherwise
     */
    record Next(Kind kind, long at, String reason) {
        enum Kind {
            RETRY,
            FAIL,
            RATE_LIMITED
        }

        static Next fail(String reason) {
            return new Next(Kind.FAIL, 0, reason);
        }
    }

    /**
     * The wait a failed attempt asks for.
     *
     * @param delay the wait before the next attempt; null to fail the job now
     * @param reason why the attempt failed, and why the job cannot be retried when the backoff is at fault
     */
    public record Retry(Duration delay, String reason) {}

    /**
     * Asks {@code backoff} once for the wait after attempt {@code failedAttempt} (1 for the first) failed for
     * {@code reason}: no retry when the job has {@code attempts} or fewer; a backoff that throws, or returns null
     * or a negative duration fails the job, saying so. Runs the user's function: call it outside any lock.
     */
    public static Retry backoff(int failedAttempt, int attempts, Backoff backoff, Throwable error, String reason) {
        if (failedAttempt >= attempts) {
            return new Retry(null, reason);
        }
        Duration delay;
        try {
            delay = backoff.delay(failedAttempt, error);
        } catch (RuntimeException e) {
            return new Retry(null, reason + "; its backoff " + backoff + " threw " + e);
        }
        if (delay == null || delay.isNegative()) {
            return new Retry(
                    null,
                    reason + "; its backoff " + backoff + " returned " + DurationText.format(delay) + " for attempt "
                            + failedAttempt
                            + "; a backoff must return zero or a positive duration");
        }
        return new Retry(delay, reason);
    }

    /**
     * After a failed attempt at {@code now}, the job having made {@code attemptsMade} attempts (this one
     * included) of {@code attempts}: retried {@code retryDelay} later, or failed when attempts are used up or
     * {@code retryDelay} is null.
     */
    static Next afterFailure(int attemptsMade, int attempts, Duration retryDelay, String reason, long now) {
        if (retryDelay == null || attemptsMade >= attempts) {
            return Next.fail(reason);
        }
        return new Next(Next.Kind.RETRY, saturatedAdd(now, nanos(retryDelay)), null);
    }

    /**
     * After an attempt was rate-limited or overloaded at {@code now}, told to wait {@code retryAfter}, the job having
     * gone back {@code rateLimits} times before: it may run again at {@code now + retryAfter}, or fails once it would
     * exceed {@code maxRateLimits}.
     */
    static Next afterRateLimit(int rateLimits, int maxRateLimits, Duration retryAfter, long now) {
        if (rateLimits >= maxRateLimits) {
            return Next.fail("rate limited " + (rateLimits + 1) + " times, more than maxRateLimits " + maxRateLimits);
        }
        return new Next(Next.Kind.RATE_LIMITED, saturatedAdd(now, nanos(retryAfter)), null);
    }

    /**
     * The wait of an overloaded job told to come back after {@code retryAfter}: that, plus up to a fifth more, at a
     * point fixed by the job's id and how often it was refused before ({@code refusals}), so that jobs refused together
     * do not all come back at the same instant, and every engine (every process) computes the same time.
     */
    public static Duration spread(Duration retryAfter, String jobId, int refusals) {
        long nanos = nanos(retryAfter);
        if (nanos <= 0 || nanos == Long.MAX_VALUE) {
            return retryAfter;
        }
        int h = (jobId + ':' + refusals).hashCode();
        h ^= h >>> 16;
        h *= 0x45d9f3b;
        h ^= h >>> 16;
        double fraction = (h & 0xFFFFFF) / (double) (1 << 24);
        return Duration.ofNanos(saturatedAdd(nanos, (long) (nanos / 5.0 * fraction)));
    }

    /** Whether a job delayed (or waiting for a retry) until {@code runAt} is ready at {@code now}. */
    static boolean isDue(long runAt, long now) {
        return runAt <= now;
    }

    /** {@code d} in nanoseconds, or {@link Long#MAX_VALUE} for a duration too long to count so (a custom backoff's). */
    public static long nanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /** {@code a + b}, or {@link Long#MAX_VALUE} where that overflows (times far in the future). */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
