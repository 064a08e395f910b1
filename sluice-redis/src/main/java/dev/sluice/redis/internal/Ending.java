package dev.sluice.redis.internal;

import dev.sluice.internal.queue.AttemptRules;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.List;

/**
 * How an attempt ended, as the queue script's finish command takes it: the kind ({@code c} completed, {@code f}
 * failed, {@code r} rate-limited, {@code a} run again, {@code i} interrupted), its arguments, the result's bytes of a
 * completed job, the error of a failed one, and what the listeners and metrics hear ({@code detail}: the
 * rate-limited result, the run-again delay or the retry delay).
 */
record Ending(String how, List<String> args, byte[] value, Throwable error, Object detail) {
    /** The ending of an attempt of {@code job} whose processor returned {@code result} (null: a failure). */
    static Ending of(Result result, ClaimedJob<?> job) {
        if (result == null) {
            return failure(job, null, QueueChecks.NULL_RESULT);
        }
        if (result instanceof Result.RateLimited limited) {
            String note = "rate limited (" + limited.scope() + ") for " + limited.retryAfter();
            return new Ending(
                    "r",
                    List.of(limited.scope().name(), Long.toString(RedisJobQueue.micros(limited.retryAfter())), note),
                    null,
                    null,
                    limited);
        }
        if (result instanceof Result.RunAgain again) {
            return new Ending(
                    "a", List.of(Long.toString(RedisJobQueue.micros(again.delay()))), null, null, again.delay());
        }
        return new Ending("c", List.of(), ((Result.Done) result).value(), null, null);
    }

    /** A failure that is not retried, whatever attempts remain. */
    static Ending failedForGood(Throwable error, String reason) {
        return failed("FAILED", reason, error, null);
    }

    /** A failure of {@code job}'s attempt, retried as its options' attempts and backoff say. */
    static Ending failure(ClaimedJob<?> job, Throwable error, String reason) {
        AttemptRules.Retry retry = AttemptRules.backoff(
                job.attempt, job.job.options().attempts(), job.job.options().backoff(), error, reason);
        return failed("FAILED", retry.reason(), error, retry.delay());
    }

    /** A failed attempt ({@code outcome} FAILED or TIMED_OUT), retried after {@code retryDelay} (null: fails now). */
    static Ending failed(String outcome, String reason, Throwable error, Duration retryDelay) {
        return new Ending(
                "f",
                List.of(
                        outcome,
                        reason,
                        error == null ? "" : error.getClass().getName(),
                        error == null ? "" : QueueChecks.stackTrace(error),
                        retryDelay == null ? "-1" : Long.toString(RedisJobQueue.micros(retryDelay))),
                null,
                error,
                retryDelay);
    }
}
