package dev.sluice.redis.internal;

import dev.sluice.internal.queue.AttemptEnd;
import dev.sluice.internal.queue.AttemptRules;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.Job;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * How an attempt ended, as the queue script's finish command takes it: the kind ({@code c} completed, {@code f}
 * failed, {@code r} rate-limited, {@code o} overloaded, {@code a} run again, {@code i} interrupted), its arguments, the
 * result's bytes of a completed job, the error of a failed one, and what the listeners and metrics hear ({@code
 * detail}: the rate-limited or overloaded result, the run-again delay or the retry delay).
 */
record Ending(String how, List<String> args, byte[] value, Throwable error, Object detail) {
    /** The ending of an attempt of job {@code id}, rate-limited {@code rateLimits} times before, that ended as {@code end}. */
    static Ending of(AttemptEnd end, String id, int rateLimits) {
        return switch (end) {
            case AttemptEnd.Completed done -> new Ending("c", List.of(), done.value(), null, null);
            case AttemptEnd.RateLimited rateLimited -> {
                Result.RateLimited limited = rateLimited.result();
                yield new Ending(
                        "r",
                        List.of(
                                limited.scope().name(),
                                Long.toString(RedisJobQueue.micros(limited.retryAfter())),
                                AttemptEnd.rateLimitedNote(limited)),
                        null,
                        null,
                        limited);
            }
            case AttemptEnd.Overloaded o -> {
                Result.Overloaded overloaded = o.result();
                yield new Ending(
                        "o",
                        List.of(
                                overloaded.scope().name(),
                                Long.toString(RedisJobQueue.micros(
                                        AttemptRules.spread(overloaded.retryAfter(), id, rateLimits))),
                                AttemptEnd.overloadedNote(overloaded),
                                Long.toString(RedisJobQueue.micros(overloaded.retryAfter()))),
                        null,
                        null,
                        overloaded);
            }
            case AttemptEnd.RunAgain again ->
                new Ending("a", List.of(Long.toString(RedisJobQueue.micros(again.delay()))), null, null, again.delay());
            case AttemptEnd.Failed failed -> failed("FAILED", failed.reason(), failed.error(), failed.retryDelay());
            case AttemptEnd.TimedOut timedOut -> failed("TIMED_OUT", timedOut.reason(), null, timedOut.retryDelay());
        };
    }

    /** Adds to {@code events} what the listeners hear of this ending, which the script recorded as {@code happened}. */
    <T> void tell(String happened, Job<T> job, List<Consumer<QueueListener<T>>> events) {
        switch (happened) {
            case "completed" -> events.add(l -> l.onCompleted(job));
            case "failed" -> events.add(l -> l.onFailed(job));
            case "retrying" -> events.add(l -> l.onRetrying(job, error, (Duration) detail));
            case "rate-limited" -> {
                Result.Scope scope = scope();
                Duration retryAfter = detail instanceof Result.RateLimited limited
                        ? limited.retryAfter()
                        : ((Result.Overloaded) detail).retryAfter();
                events.add(l -> l.onRateLimited(job, scope, retryAfter));
            }
            case "rescheduled" -> events.add(l -> l.onRescheduled(job, (Duration) detail));
            default -> {}
        }
    }

    /** The scope of a rate-limited or overloaded ending; null for the others. */
    Result.Scope scope() {
        return switch (detail) {
            case Result.RateLimited limited -> limited.scope();
            case Result.Overloaded overloaded -> overloaded.scope();
            case null, default -> null;
        };
    }

    /** A failed attempt ({@code outcome} FAILED or TIMED_OUT), retried after {@code retryDelay} (null: fails now). */
    private static Ending failed(String outcome, String reason, Throwable error, Duration retryDelay) {
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
