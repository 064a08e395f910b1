package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.server.internal.Problem.Kind;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The API's routes on limits, below {@code /api/v1/limiters}: the named limiters and chains the servlet was given,
 * listed, described, and asked for permits. An answer to {@code acquire} is the {@link Decision} as JSON with the
 * response fields the ingress filter sends ({@code RateLimit-Policy}, {@code RateLimit}, and {@code Retry-After} on a
 * denial, draft-ietf-httpapi-ratelimit-headers-11): 200 when allowed, 429 when denied, 503 when denied because the
 * engine could not be reached (a fail-closed limiter).
 */
public final class LimiterRoutes {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final long SECOND = 1_000_000_000L;

    /** What a route answers: its status, the response fields to set, and the JSON body. */
    public record Answer(int status, Map<String, String> headers, JsonNode body) {}

    /** A limit the API serves: one limiter, or a chain (whose layers are its limiters). */
    private record Limit(String name, NamedLimiter single, LimitChain<String> chain) {
        List<NamedLimiter> layers() {
            return single != null
                    ? List.of(single)
                    : chain.layers().stream().map(LimitChain.Layer::limiter).toList();
        }

        long limit() {
            return layers().stream().mapToLong(l -> l.policy().limit()).min().orElseThrow();
        }
    }

    private final SluiceClock clock;
    private final Map<String, Limit> limits = new TreeMap<>();

    /**
     * The routes on {@code limiters} and {@code chains}, by the names the API gives them (distinct), deciding on
     * {@code clock}'s time.
     */
    public LimiterRoutes(
            SluiceClock clock, Map<String, NamedLimiter> limiters, Map<String, LimitChain<String>> chains) {
        this.clock = clock;
        limiters.forEach((name, limiter) -> limits.put(name, new Limit(name, limiter, null)));
        chains.forEach((name, chain) -> limits.put(name, new Limit(name, null, chain)));
    }

    /**
     * Serves {@code method} on {@code path} (the segments after {@code /api/v1}, the first being {@code limiters}),
     * with the request's JSON {@code body} for {@code acquire} (read only then).
     *
     * @return the answer
     * @throws Problem if the request is refused
     */
    public Answer serve(String method, List<String> path, Supplier<JsonNode> body) {
        String at = "/api/v1/" + String.join("/", path);
        if (path.size() == 1) {
            only(method, "GET", at);
            ArrayNode all = JSON.arrayNode();
            limits.values().forEach(limit -> all.add(describe(limit)));
            return new Answer(200, Map.of(), JSON.objectNode().set("limiters", all));
        }
        Limit limit = limits.get(path.get(1));
        if (limit == null) {
            throw new Problem(
                    Kind.LIMITER_NOT_FOUND,
                    "limiter '" + path.get(1) + "' does not exist (limiters: "
                            + (limits.isEmpty() ? "none" : String.join(", ", limits.keySet())) + ")");
        }
        if (path.size() == 2) {
            only(method, "GET", at);
            return new Answer(200, Map.of(), describe(limit));
        }
        if (path.size() == 3 && path.get(2).equals("acquire")) {
            only(method, "POST", at);
            return acquire(limit, body.get());
        }
        throw new Problem(Kind.NOT_FOUND, "no resource at " + at);
    }

    private static void only(String method, String allowed, String at) {
        if (!method.equals(allowed)) {
            throw new Problem(Kind.METHOD_NOT_ALLOWED, method + " is not allowed on " + at + " (" + allowed + ")");
        }
    }

    private static ObjectNode describe(Limit limit) {
        ObjectNode node = JSON.objectNode().put("name", limit.name());
        if (limit.single() != null) {
            node.put("kind", "limiter");
            policy(node, limit.single().policy());
        } else {
            node.put("kind", "chain");
            ArrayNode layers = node.putArray("layers");
            for (NamedLimiter layer : limit.layers()) {
                policy(layers.addObject().put("limiter", layer.name()), layer.policy());
            }
        }
        return node.put("limit", limit.limit());
    }

    /** Puts {@code policy}'s name and its parameters (as the configuration file writes them) into {@code node}. */
    private static void policy(ObjectNode node, LimitPolicy policy) {
        ObjectNode parameters = Policies.describe(policy);
        node.put("policy", parameters.remove("policy").asText());
        node.set("parameters", parameters);
    }

    private Answer acquire(Limit limit, JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new Problem(
                    Kind.INVALID_REQUEST, "the body must be a JSON object: {\"key\": \"...\", \"permits\": 1}");
        }
        for (Iterator<String> fields = body.fieldNames(); fields.hasNext(); ) {
            String field = fields.next();
            if (!field.equals("key") && !field.equals("permits")) {
                throw new Problem(Kind.INVALID_REQUEST, "unknown field '" + field + "' (fields: key, permits)");
            }
        }
        JsonNode keyNode = body.get("key");
        if (keyNode == null
                || !keyNode.isTextual()
                || keyNode.asText().isEmpty()
                || keyNode.asText().length() > NamedLimiter.MAX_KEY_LENGTH) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "key must be a string of 1 to " + NamedLimiter.MAX_KEY_LENGTH
                            + " characters (a tenant, a client, an endpoint), was "
                            + (keyNode == null ? "none" : keyNode.toString()));
        }
        long most = limit.limit();
        JsonNode permitsNode = body.get("permits");
        if (permitsNode != null
                && (!permitsNode.isIntegralNumber()
                        || !permitsNode.canConvertToLong()
                        || permitsNode.asLong() < 1
                        || permitsNode.asLong() > most)) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "permits must be a whole number from 1 to " + most + " (the limit of '" + limit.name() + "'), was "
                            + permitsNode);
        }
        for (NamedLimiter layer : limit.layers()) {
            if (layer.policy() instanceof ConcurrencyLimit) {
                throw new Problem(
                        Kind.CONFLICT,
                        "'" + layer.name() + "' is a concurrency limiter: its permits are leases to release, which"
                                + " this API cannot release yet; ask a rate limiter (" + Policies.RATE_POLICIES + ")");
            }
        }
        String key = keyNode.asText();
        long permits = permitsNode == null ? 1 : permitsNode.asLong();
        Decision decision = limit.single() != null
                ? limit.single().tryAcquire(key, permits)
                : limit.chain().tryAcquire(key, permits);
        return answer(limit, key, permits, decision);
    }

    private Answer answer(Limit limit, String key, long permits, Decision decision) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("RateLimit-Policy", policyField(limit.layers()));
        boolean unavailable = decision.basis() == Decision.Basis.UNAVAILABLE_DENIED;
        long retry = 0;
        long reset = ceilSeconds(decision.resetAtNanos() - clock.nanos());
        if (decision.denied()) {
            retry = Math.max(1, ceilSeconds(decision.retryAfterNanos()));
            if (!unavailable) {
                headers.put("RateLimit", limitField(decision.limiter(), 0, retry));
            }
            headers.put("Retry-After", Long.toString(retry));
        } else if (decision.basis() != Decision.Basis.UNAVAILABLE_ALLOWED) {
            headers.put("RateLimit", limitField(decision.limiter(), decision.remaining(), reset));
        }
        String decidedBy = limit.layers().stream()
                .filter(l -> l.name().equals(decision.limiter()))
                .findFirst()
                .map(l -> Policies.name(l.policy()))
                .orElse(null);
        ObjectNode body = JSON.objectNode()
                .put("limiter", limit.name())
                .put("key", key)
                .put("permits", permits)
                .put("allowed", decision.allowed())
                .put("remaining", Math.max(0, decision.remaining()))
                .put("limit", decision.limit())
                .put("retryAfterNanos", decision.retryAfterNanos())
                .put("retryAfterSeconds", retry)
                .put("resetAt", decision.resetAt().toString())
                .put("resetAfterSeconds", Math.max(0, reset))
                .put("decidedBy", decision.limiter())
                .put("policy", decidedBy)
                .put("basis", decision.basis().name().toLowerCase(Locale.ROOT));
        int status = decision.allowed() ? 200 : unavailable ? 503 : 429;
        return new Answer(status, headers, body);
    }

    /** {@code "tenant";q=10;w=1, "global";q=100;w=1}: every policy of the limit, as the ingress filter writes it. */
    private static String policyField(List<NamedLimiter> layers) {
        StringBuilder out = new StringBuilder();
        for (NamedLimiter layer : layers) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            LimitPolicy policy = layer.policy();
            out.append('"').append(layer.name()).append("\";q=").append(policy.limit());
            out.append(";w=").append(Math.max(1, ceilSeconds(window(policy).toNanos())));
        }
        return out.toString();
    }

    /** {@code "tenant";r=17;t=42}: the limiter that decided, what is left of it, and when it is full or allows. */
    private static String limitField(String limiter, long remaining, long seconds) {
        return "\"" + limiter + "\";r=" + Math.max(0, remaining) + ";t=" + Math.max(0, seconds);
    }

    /** The span over which a policy's quota comes back: its window, or the time to refill from empty. */
    private static Duration window(LimitPolicy policy) {
        return switch (policy) {
            case FixedWindow p -> p.window();
            case SlidingWindowLog p -> p.window();
            case SlidingWindowCounter p -> p.window();
            case TokenBucket p -> scaled(p.refillPeriod(), p.capacity(), p.refillTokens());
            case Gcra p -> scaled(p.period(), p.burst(), p.rate());
            case ConcurrencyLimit p -> p.leaseTimeout();
            default -> throw new IllegalArgumentException("limiters take no adaptive rate: " + policy);
        };
    }

    private static Duration scaled(Duration period, long numerator, long denominator) {
        double nanos = (double) period.toNanos() * numerator / denominator;
        return Duration.ofNanos(nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(nanos));
    }

    private static long ceilSeconds(long nanos) {
        return nanos <= 0 ? 0 : nanos / SECOND + (nanos % SECOND == 0 ? 0 : 1);
    }
}
