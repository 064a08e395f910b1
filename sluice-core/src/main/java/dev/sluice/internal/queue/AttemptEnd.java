package dev.sluice.internal.queue;

import dev.sluice.queue.JobContext;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.queue.UnrecoverableJobException;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * How one attempt of a job ended, read from what its processor returned or threw: the same reading on every engine,
 * which then records it in its own store.
 */
public sealed interface AttemptEnd {
    /** The processor returned {@link Result#done}: the result's bytes, null for none. */
    record Completed(byte[] value) implements AttemptEnd {}

    /** The processor returned {@link Result#rateLimited}. */
    record RateLimited(Result.RateLimited result) implements AttemptEnd {}

    /**
     * What a rate-limited attempt says in the job's history, on every engine.
     *
     * @return for example {@code rate limited (GROUP) for 1.5 s}
     */
    static String rateLimitedNote(Result.RateLimited limited) {
        return "rate limited (" + limited.scope() + ") for " + DurationText.format(limited.retryAfter());
    }

    /** The processor returned {@link Result#overloaded}. */
    record Overloaded(Result.Overloaded result) implements AttemptEnd {}

    /**
     * What an overloaded attempt says in the job's history, on every engine.
     *
     * @return for example {@code overloaded (GROUP), again after 2 s}
     */
    static String overloadedNote(Result.Overloaded overloaded) {
        return "overloaded (" + overloaded.scope() + "), again after " + DurationText.format(overloaded.retryAfter());
    }

    /** The processor returned {@link Result#runAgainAfter}. */
    record RunAgain(Duration delay) implements AttemptEnd {}

    /**
     * The attempt failed: with {@code error} (null when the processor returned null, which fails the job for good),
     * for {@code reason}, retried after {@code retryDelay} or, if it is null, failed for good.
     */
    record Failed(Throwable error, String reason, Duration retryDelay) implements AttemptEnd {}

    /** The attempt's timeout passed: retried after {@code retryDelay} or, if it is null, failed for good. */
    record TimedOut(String reason, Duration retryDelay) implements AttemptEnd {}

    /**
     * The end of attempt {@code attempt} of a job with {@code options} whose {@code timeout} passed, retried as the
     * options' attempts and backoff say (the backoff is the user's function: call this outside any lock).
     */
    static TimedOut timedOut(int attempt, JobOptions options, Duration timeout) {
        AttemptRules.Retry retry = AttemptRules.backoff(
                attempt,
                options.attempts(),
                options.backoff(),
                null,
                "timed out after " + DurationText.format(timeout));
        return new TimedOut(retry.reason(), retry.delay());
    }

    /**
     * Runs {@code processor} on {@code context}, attempt {@code attempt} (1 for the first) of a job with {@code
     * options}, and reads how the attempt ended. A failure is retried as the options' attempts and backoff say (the
     * backoff is the user's function: call this outside any lock), except a payload the codec cannot decode and an
     * {@link UnrecoverableJobException}, which fail the job for good; so does a processor that returns null (a mistake
     * in the processor that another attempt would repeat), saying so.
     */
    static <T> AttemptEnd run(Processor<T> processor, JobContext<T> context, int attempt, JobOptions options) {
        Result result;
        try {
            result = processor.process(context);
        } catch (LazyPayload.Undecodable e) {
            return new Failed(e.getCause(), e.getMessage(), null);
        } catch (UnrecoverableJobException e) {
            return new Failed(e, QueueChecks.reasonOf(e), null);
        } catch (Throwable e) {
            return failed(attempt, options, e, QueueChecks.reasonOf(e));
        }
        return switch (result) {
            case null -> new Failed(null, QueueChecks.NULL_RESULT, null);
            case Result.Done done -> new Completed(done.value());
            case Result.RateLimited limited -> new RateLimited(limited);
            case Result.RunAgain again -> new RunAgain(again.delay());
            case Result.Overloaded overloaded -> new Overloaded(overloaded);
        };
    }

    private static AttemptEnd failed(int attempt, JobOptions options, Throwable error, String reason) {
        AttemptRules.Retry retry = AttemptRules.backoff(attempt, options.attempts(), options.backoff(), error, reason);
        return new Failed(error, retry.reason(), retry.delay());
    }
}
