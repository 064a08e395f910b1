package dev.sluice.spring;

import dev.sluice.SluiceException;
import dev.sluice.limit.Decision;
import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * A call of a {@link RateLimited} method that its limiter denied; the method did not run. A servlet web
 * application answers it with {@code 429 Too Many Requests} and {@code Retry-After} unless a handler of its own
 * takes it first.
 */
public final class RateLimitedException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /** The limiter's name. */
    private final String limiter;
    /** The key of the denied call. */
    private final String key;
    /** The denial's retry-after. */
    private final Duration retryAfter;

    private final transient Decision decision;

    /**
     * A denied call.
     *
     * @param limiter the name in the method's {@link RateLimited} annotation
     * @param key the key the call was limited by
     * @param decision the denial
     * @throws IllegalArgumentException if an argument is null, or the decision allowed the call
     */
    public RateLimitedException(String limiter, String key, Decision decision) {
        super(message(limiter, key, decision));
        this.limiter = limiter;
        this.key = key;
        this.retryAfter = decision.retryAfter();
        this.decision = decision;
    }

    private static String message(String limiter, String key, Decision decision) {
        if (limiter == null || key == null || decision == null) {
            throw new IllegalArgumentException(
                    "limiter, key and decision must not be null, was " + limiter + ", " + key + ", " + decision);
        }
        if (decision.allowed()) {
            throw new IllegalArgumentException("the decision must be a denial, was " + decision);
        }
        return "limiter '" + limiter + "' denied key '" + key + "'; retry after "
                + DurationText.format(decision.retryAfter())
                + (decision.degraded() ? " (" + decision.basis() + ")" : "");
    }

    /**
     * The limiter's name, as the annotation gives it.
     *
     * @return the name
     */
    public String limiter() {
        return limiter;
    }

    /**
     * The key of the denied call.
     *
     * @return the key
     */
    public String key() {
        return key;
    }

    /**
     * How long until the same call would be allowed if nothing else arrived.
     *
     * @return the denial's retry-after, positive
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    /**
     * The limiter's denial, with its basis (a decision made while the engine was unavailable says so); null after
     * the exception was deserialized.
     *
     * @return the decision
     */
    public Decision decision() {
        return decision;
    }
}
