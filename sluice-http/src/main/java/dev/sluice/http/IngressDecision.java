package dev.sluice.http;

import dev.sluice.limit.Decision;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;

/**
 * What the ingress limits say of one request: pass it on, or answer it with {@link #status()}, {@link
 * #headers()} and {@link #problem()}.
 *
 * <p>An allowed request carries the headers too, to be set on its response: the RateLimit fields tell clients
 * how much is left. A request with a concurrency limit holds its permit until {@link #release()} is called,
 * when its response is done. Immutable.
 */
public final class IngressDecision {
    private final Outcome outcome;
    private final String rule;
    private final ClientAddress client;
    private final Map<String, String> headers;
    private final String problem;
    private final Decision decision;

    /** Takes {@code headers} as they are: the limiter made them for this decision alone. */
    IngressDecision(
            Outcome outcome,
            String rule,
            ClientAddress client,
            Map<String, String> headers,
            String problem,
            Decision decision) {
        this.outcome = outcome;
        this.rule = rule;
        this.client = client;
        this.headers = Collections.unmodifiableMap(headers);
        this.problem = problem;
        this.decision = decision;
    }

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
     * What happens to the request.
     *
     * @return the outcome
     */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * The rule that matched.
     *
     * @return its name, or null if none did
     */
    public String rule() {
        return rule;
    }

    /**
     * The request's client, as the resolver found it.
     *
     * @return the client, or null if no rule matched
     */
    public ClientAddress client() {
        return client;
    }

    /**
     * Response headers to set, in order: the RateLimit fields, and on a denial {@code Retry-After}.
     *
     * @return the headers, read-only; empty when no rule matched or the client is exempt
     */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * For a denial, an RFC 9457 {@code application/problem+json} body naming the policy and the retry time.
     *
     * @return the body, or null if the request goes on
     */
    public String problem() {
        return problem;
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

    @Override
    public String toString() {
        return "IngressDecision[" + outcome + (rule == null ? "" : ", rule " + rule)
                + (client == null ? "" : ", client " + client) + "]";
    }
}
