package dev.sluice.queue;

import java.time.Duration;

/**
 * What a {@link Processor} says about the job it ran. A processor that fails throws instead: any exception
 * is retried with the job's backoff while attempts remain, {@link UnrecoverableJobException} fails at once.
 */
public sealed interface Result {
    /** The job is done. */
    static Result done() {
        return Done.EMPTY;
    }

    /** The job is done, and {@code value} is kept as its result (for instance a JSON document). */
    static Result done(String value) {
        return new Done(value);
    }

    /**
     * The job could not run because something downstream is rate-limiting it (an HTTP 429 with Retry-After,
     * say). The job goes back to waiting without using an attempt, and {@code scope} pauses for {@code
     * retryAfter}: only the job's group, or the whole queue. A pause returned at {@code t} ends at exactly
     * {@code t + retryAfter}: jobs may start at that instant, none up to the nanosecond before.
     */
    static Result rateLimited(Scope scope, Duration retryAfter) {
        return new RateLimited(scope, retryAfter);
    }

    /** A completed job, with its result value or {@code null}. */
    record Done(String value) implements Result {
        static final Done EMPTY = new Done(null);
    }

    /** A rate-limited job: what pauses, and for how long. */
    record RateLimited(Scope scope, Duration retryAfter) implements Result {
        /** Validates: scope not null, retryAfter zero or positive. */
        public RateLimited {
            if (scope == null) {
                throw new IllegalArgumentException("rate-limit scope must be GROUP or QUEUE, was null");
            }
            Durations.notNegative("retryAfter", retryAfter);
        }
    }

    /** What a rate limit reported by a processor pauses. */
    enum Scope {
        /** Only the job's group: other tenants go on. An ungrouped job pauses the ungrouped jobs. */
        GROUP,
        /** Every job of the queue. */
        QUEUE
    }
}
