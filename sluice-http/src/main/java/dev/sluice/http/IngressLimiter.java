package dev.sluice.http;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Limits at the door: decides, for each HTTP request, whether it goes on to the application or is answered
 * 429 (or 503 while a fail-closed limit cannot be checked), with the response fields that tell clients where
 * they stand. Framework-neutral: an adapter such as {@link dev.sluice.http.servlet.SluiceRateLimitFilter}
 * turns its requests into {@link IngressRequest}s and applies the {@link IngressDecision}.
 *
 * <p>The first rule (in the order added) whose paths and methods match a request applies; a request no rule
 * matches is not limited. The request's client is found by the limiter's {@link ClientAddressResolver}
 * (trusting no proxy unless configured).
 *
 * <p>Responses carry {@code RateLimit-Policy} (every policy of the rule: {@code "burst";q=100;w=60}) and
 * {@code RateLimit} (the policy with the fewest permits left, or the one that denied: {@code
 * "burst";r=0;t=30}) as draft-ietf-httpapi-ratelimit-headers-11 defines them; optionally the legacy {@code
 * X-RateLimit-Limit}, {@code -Remaining} and {@code -Reset} (seconds from now); and on a denial {@code
 * Retry-After} in whole seconds, rounded up, never 0. While the engine is unavailable each limit answers as
 * its {@link dev.sluice.limit.WhenUnavailable} says: a fail-closed limit gives 503 with {@code Retry-After}.
 * Thread-safe.
 */
public final class IngressLimiter {
    private final Sluice sluice;
    private final ClientAddressResolver resolver;
    private final List<Compiled> rules;
    private final boolean legacyHeaders;

    private record Compiled(
            IngressRule rule,
            LimitChain<Keyed> chain,
            NamedLimiter single,
            Map<String, String> policyOf,
            AtomicReference<PolicyField> policyCache,
            AtomicReference<Problem> problemCache) {
        /** The problem body of a denial by {@code policy}, {@code retry} seconds from now. */
        String problem(String policy, long retry, boolean unavailable) {
            Problem last = problemCache.get();
            if (last == null
                    || last.retry() != retry
                    || last.unavailable() != unavailable
                    || !last.policy().equals(policy)) {
                String name = rule.name();
                String body = unavailable
                        ? RateLimitFields.problem(
                                503,
                                "Service Unavailable",
                                "The limits of rule '" + name + "' cannot be checked now; retry in " + retry + " s.",
                                name,
                                policy,
                                retry)
                        : RateLimitFields.problem(
                                429,
                                "Too Many Requests",
                                "Rate limit '" + policy + "' of rule '" + name + "' exceeded; retry in " + retry
                                        + " s.",
                                name,
                                policy,
                                retry);
                last = new Problem(policy, retry, unavailable, body);
                problemCache.set(last);
            }
            return last.body();
        }

        /** The rule's RateLimit-Policy, made anew only when a limiter's policy was updated. */
        String policyField() {
            PolicyField last = policyCache.get();
            if (last == null || !last.isOf(rule.limits())) {
                List<LimitPolicy> policies =
                        rule.limits().stream().map(l -> l.limiter().policy()).toList();
                last = new PolicyField(policies, RateLimitFields.policy(rule.limits()));
                policyCache.set(last);
            }
            return last.text();
        }
    }

    /** The last problem body a rule answered with: denials in a burst share their policy and retry time. */
    private record Problem(String policy, long retry, boolean unavailable, String body) {}

    private record PolicyField(List<LimitPolicy> policies, String text) {
        boolean isOf(List<IngressRule.Limit> limits) {
            for (int i = 0; i < policies.size(); i++) {
                if (policies.get(i) != limits.get(i).limiter().policy()) {
                    return false;
                }
            }
            return true;
        }
    }

    /** What the layers of a rule's chain key by: the request's key. */
    private record Keyed(String key) {}

    private IngressLimiter(Builder b) {
        this.sluice = b.sluice;
        this.resolver = b.resolver;
        this.legacyHeaders = b.legacyHeaders;
        List<Compiled> compiled = new ArrayList<>();
        for (IngressRule rule : b.rules) {
            Map<String, String> policyOf = new HashMap<>();
            for (IngressRule.Limit limit : rule.limits()) {
                policyOf.put(limit.limiter().name(), limit.policy());
            }
            if (rule.limits().size() == 1) {
                compiled.add(new Compiled(
                        rule,
                        null,
                        rule.limits().get(0).limiter(),
                        policyOf,
                        new AtomicReference<>(),
                        new AtomicReference<>()));
            } else {
                LimitChain.Builder<Keyed> chain = sluice.chain();
                for (IngressRule.Limit limit : rule.limits()) {
                    chain.layer(limit.limiter(), Keyed::key);
                }
                compiled.add(new Compiled(
                        rule, chain.build(), null, policyOf, new AtomicReference<>(), new AtomicReference<>()));
            }
        }
        this.rules = List.copyOf(compiled);
    }

    /**
     * Starts the ingress limits of an application whose limiters live in {@code sluice}.
     *
     * @param sluice the engine of every limiter the rules use
     * @return a builder
     * @throws IllegalArgumentException if the engine is null
     */
    public static Builder builder(Sluice sluice) {
        if (sluice == null) {
            throw new IllegalArgumentException("engine of the ingress limits must not be null");
        }
        return new Builder(sluice);
    }

    /**
     * The rules, in the order they are tried.
     *
     * @return the rules
     */
    public List<IngressRule> rules() {
        return rules.stream().map(Compiled::rule).toList();
    }

    /**
     * Decides on {@code request}, taking its permits if it goes on.
     *
     * @param request the request
     * @return the decision; release it when the response is done if a rule has a concurrency limit
     * @throws IllegalArgumentException if the request is null, or a rule's cost function gives a cost out of range
     * @throws IllegalStateException if the engine is closed
     */
    public IngressDecision check(IngressRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("request must not be null");
        }
        String path = IngressRule.normalize(request.path());
        for (Compiled compiled : rules) {
            if (compiled.rule().matches(request.method(), path)) {
                return check(request, compiled);
            }
        }
        return new IngressDecision(IngressDecision.Outcome.NOT_LIMITED, null, null, Map.of(), null, null);
    }

    private IngressDecision check(IngressRequest request, Compiled compiled) {
        IngressRule rule = compiled.rule();
        ClientAddress client = resolver.resolve(request);
        if (rule.exempts(client)) {
            return new IngressDecision(IngressDecision.Outcome.NOT_LIMITED, rule.name(), client, Map.of(), null, null);
        }
        String key = rule.key().keyOf(request, client);
        long permits = rule.costOf(request);
        Decision decision = compiled.single() != null
                ? compiled.single().tryAcquire(key, permits)
                : compiled.chain().tryAcquire(new Keyed(key), permits);
        String policy = compiled.policyOf().getOrDefault(decision.limiter(), decision.limiter());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("RateLimit-Policy", compiled.policyField());
        if (decision.denied()) {
            long retry = RateLimitFields.retryAfterSeconds(decision.retryAfterNanos());
            boolean unavailable = decision.basis() == Decision.Basis.UNAVAILABLE_DENIED;
            if (!unavailable) {
                headers.put("RateLimit", RateLimitFields.limit(policy, 0, retry));
                legacy(headers, decision.limit(), 0, retry);
            }
            headers.put("Retry-After", Long.toString(retry));
            String problem = compiled.problem(policy, retry, unavailable);
            return new IngressDecision(
                    unavailable ? IngressDecision.Outcome.UNAVAILABLE : IngressDecision.Outcome.LIMITED,
                    rule.name(),
                    client,
                    headers,
                    problem,
                    decision);
        }
        if (decision.basis() != Decision.Basis.UNAVAILABLE_ALLOWED) {
            long reset = RateLimitFields.ceilSeconds(
                    decision.resetAtNanos() - sluice.clock().nanos());
            headers.put("RateLimit", RateLimitFields.limit(policy, decision.remaining(), reset));
            legacy(headers, decision.limit(), decision.remaining(), reset);
        }
        return new IngressDecision(IngressDecision.Outcome.ALLOWED, rule.name(), client, headers, null, decision);
    }

    private void legacy(Map<String, String> headers, long limit, long remaining, long reset) {
        if (legacyHeaders) {
            headers.put("X-RateLimit-Limit", Long.toString(limit));
            headers.put("X-RateLimit-Remaining", Long.toString(Math.max(0, remaining)));
            headers.put("X-RateLimit-Reset", Long.toString(Math.max(0, reset)));
        }
    }

    /** Builds an {@link IngressLimiter}. Not thread-safe. */
    public static final class Builder {
        private final Sluice sluice;
        private ClientAddressResolver resolver = ClientAddressResolver.peerOnly();
        private final List<IngressRule> rules = new ArrayList<>();
        private boolean legacyHeaders;

        private Builder(Sluice sluice) {
            this.sluice = sluice;
        }

        /**
         * How clients are found ({@link ClientAddressResolver#peerOnly()} by default: no proxy is trusted).
         *
         * @param resolver the resolver
         * @return this builder
         * @throws IllegalArgumentException if the resolver is null
         */
        public Builder clientAddresses(ClientAddressResolver resolver) {
            if (resolver == null) {
                throw new IllegalArgumentException("client address resolver must not be null");
            }
            this.resolver = resolver;
            return this;
        }

        /**
         * Adds a rule; rules are tried in the order added and the first that matches applies.
         *
         * @param rule the rule
         * @return this builder
         * @throws IllegalArgumentException if the rule is null, or another rule has its name
         */
        public Builder rule(IngressRule rule) {
            if (rule == null) {
                throw new IllegalArgumentException("rule must not be null");
            }
            if (rules.stream().anyMatch(r -> r.name().equals(rule.name()))) {
                throw new IllegalArgumentException("a rule named '" + rule.name() + "' was added already");
            }
            rules.add(rule);
            return this;
        }

        /**
         * Also sends {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset}
         * (seconds from now), for clients that read only those (off by default).
         *
         * @param send whether to send them
         * @return this builder
         */
        public Builder legacyHeaders(boolean send) {
            this.legacyHeaders = send;
            return this;
        }

        /**
         * Builds the limits.
         *
         * @return the ingress limiter
         * @throws IllegalArgumentException if a rule's limiters belong to another engine
         * @throws IllegalStateException if the engine is closed
         */
        public IngressLimiter build() {
            return new IngressLimiter(this);
        }
    }
}
