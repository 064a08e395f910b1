package dev.sluice.http;

import dev.sluice.limit.Decision;
import java.util.Map;
import java.util.Optional;

/**
 * What the ingress limits say of one request: pass it on, or answer it with {@link #status()}, {@link
 * #headers()} and {@link #problem()}.
 *
 * <p>An allowed request carries the headers too, to be set on its response: the RateLimit fields tell clients
 * how much is left. A request with a concurrency limit holds its permit until {@link #release()} is called,
 * when its response is done.
 *
 * @param outcome what happens to the request
 * @param rule the name of the rule that matched, or null if none did
 * @param client the request's client, or null if no rule matched
 * @param headers response headers to set, in order (empty when no rule matched or the client is exempt)
 * @param problem for a denial, an RFC 9457 {@code application/problem+json} body naming the policy and the
 *     retry time; else null
 * @param decision the limits' decision, or null if no rule matched or the client is exempt
 */
public record IngressDecision(
        Outcome outcome,
        String rule,
        ClientAddress client,
        Map<String, String> headers,
        String problem,
        Decision decision) {

    /** What happens to a request. */
    public enum Outcome {
        /** No rule matched, or the rule exempts the client: no limit applies. */
        NOT_LIMITED,
        /** Within the rule's limits: pass it on, with the headers. */
        ALLOWED,
        /** Over a limit: answer 429 Too Many Requests. */
        LIMITED,
        /** The limits cannot be checked and fail closed: answer 503 Service Unavailable. */
        UNAVAILABLE
    }

    /** The media type of {@link #problem()}. */
    public static final String PROBLEM_MEDIA_TYPE = "application/problem+json";

    /**
     * Copies the headers.
     *
     * @throws IllegalArgumentException if the outcome or headers are null
     */
    public IngressDecision {
        if (outcome == null || headers == null) {
            throw new IllegalArgumentException("outcome and headers of an ingress decision must not be null");
        }
        headers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
    }

    /**
     * Whether the request goes on to the application.
     *
     * @return true unless {@link Outcome#LIMITED} or {@link Outcome#UNAVAILABLE}
     */
    public boolean allowed() {
        return outcome == Outcome.NOT_LIMITED || outcome == Outcome.ALLOWED;
    }

    /**
     * The status to answer a denied request with.
     *
     * @return 429 or 503 for a denial; 0 for a request that goes on
     */
    public int status() {
        return switch (outcome) {
            case LIMITED -> 429;
            case UNAVAILABLE -> 503;
            default -> 0;
        };
    }

    /**
     * The limits' decision.
     *
     * @return the decision, or empty if no limit applied
     */
    public Optional<Decision> limitDecision() {
        return Optional.ofNullable(decision);
    }

    /**
     * Gives back what the request holds of a concurrency limit; call it once the response is done. Does nothing
     * for other limits, and the second time.
     */
    public void release() {
        if (decision != null) {
            decision.release();
        }
    }
}
