package dev.sluice.http;

import dev.sluice.limit.NamedLimiter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;

/**
 * Which requests a set of limits applies to, and how they are keyed and costed.
 *
 * <p>A rule matches requests by path pattern and method. Patterns are whole paths whose segments may be
 * {@code *} (any one segment, or part of one: {@code *.json}) or {@code **} (any number of segments, none
 * included): {@code /api/**}, {@code /users/*}{@code /orders}. Paths are compared case-sensitively after
 * repeated slashes, a trailing slash and {@code ;parameters} are removed. The rule's limits are taken together,
 * all or nothing (a burst limit and a daily quota, say); each request costs {@link Builder#cost(long)} permits
 * of each. Requests from exempt address ranges pass without limits. Immutable.
 */
public final class IngressRule {
    /** A limit of a rule: the limiter, and the policy name the RateLimit fields give it. */
    record Limit(String policy, NamedLimiter limiter) {}

    private final String name;
    private final List<String> paths;
    private final List<Pattern> patterns;
    private final boolean matchesAll;
    private final Set<String> methods;
    private final RequestKey key;
    private final List<Limit> limits;
    private final ToLongFunction<IngressRequest> cost;
    private final List<AddressRange> exempt;

    private IngressRule(Builder b) {
        this.name = b.name;
        this.paths = List.copyOf(b.paths.isEmpty() ? List.of("/**") : b.paths);
        this.patterns = this.paths.stream().map(IngressRule::compile).toList();
        this.matchesAll = this.paths.stream().anyMatch(p -> normalize(p).equals("/**"));
        this.methods = Set.copyOf(b.methods);
        this.key = b.key;
        this.limits = List.copyOf(b.limits);
        this.cost = b.cost;
        this.exempt = List.copyOf(b.exempt);
    }

    /**
     * Starts a rule called {@code name} (as responses name it): every path, every method, keyed by client
     * address, one permit per request.
     *
     * @param name 1 to 64 characters: letters, digits and {@code . _ - :}
     * @return a builder
     * @throws IllegalArgumentException if the name is malformed
     */
    public static Builder named(String name) {
        return new Builder(checkName("rule name", name));
    }

    /**
     * The rule's name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The path patterns the rule matches.
     *
     * @return the patterns
     */
    public List<String> paths() {
        return paths;
    }

    /**
     * The methods the rule matches, upper case; empty for every method.
     *
     * @return the methods
     */
    public Set<String> methods() {
        return methods;
    }

    List<Limit> limits() {
        return limits;
    }

    RequestKey key() {
        return key;
    }

    long costOf(IngressRequest request) {
        return cost.applyAsLong(request);
    }

    boolean exempts(ClientAddress client) {
        byte[] address = client.bytes();
        if (address == null) {
            return false;
        }
        for (AddressRange range : exempt) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    boolean matches(String method, String normalizedPath) {
        if (!methods.isEmpty() && !methods.contains(method.toUpperCase(Locale.ROOT))) {
            return false;
        }
        if (matchesAll) {
            return true;
        }
        for (Pattern pattern : patterns) {
            if (pattern.matcher(normalizedPath).matches()) {
                return true;
            }
        }
        return false;
    }

    /** The path as rules compare it: no ";parameters", no repeated or trailing slashes. */
    static String normalize(String path) {
        if (isNormal(path)) {
            return path;
        }
        StringBuilder out = new StringBuilder(path.length() + 1);
        int i = 0;
        while (i < path.length()) {
            char c = path.charAt(i);
            if (c == ';') {
                while (i < path.length() && path.charAt(i) != '/') {
                    i++;
                }
                continue;
            }
            if (c == '/' && out.length() > 0 && out.charAt(out.length() - 1) == '/') {
                i++;
                continue;
            }
            if (out.length() == 0 && c != '/') {
                out.append('/');
            }
            out.append(c);
            i++;
        }
        if (out.length() == 0) {
            return "/";
        }
        if (out.length() > 1 && out.charAt(out.length() - 1) == '/') {
            out.setLength(out.length() - 1);
        }
        return out.toString();
    }

    private static boolean isNormal(String path) {
        int n = path.length();
        if (n == 0 || path.charAt(0) != '/' || (n > 1 && path.charAt(n - 1) == '/')) {
            return false;
        }
        for (int i = 1; i < n; i++) {
            char c = path.charAt(i);
            if (c == ';' || (c == '/' && path.charAt(i - 1) == '/')) {
                return false;
            }
        }
        return true;
    }

    private static Pattern compile(String pattern) {
        String p = normalize(pattern);
        StringBuilder regex = new StringBuilder();
        String[] segments = p.substring(1).split("/", -1);
        for (String segment : segments) {
            if (segment.equals("**")) {
                regex.append("(?:/.*)?");
                continue;
            }
            regex.append('/');
            int from = 0;
            for (int star = segment.indexOf('*'); star >= 0; star = segment.indexOf('*', from)) {
                regex.append(Pattern.quote(segment.substring(from, star))).append("[^/]*");
                from = star + 1;
            }
            if (from < segment.length()) {
                regex.append(Pattern.quote(segment.substring(from)));
            }
        }
        if (regex.isEmpty() || p.equals("/")) {
            regex.setLength(0);
            regex.append('/');
        }
        return Pattern.compile(regex.toString());
    }

    static String checkName(String what, String name) {
        if (name == null || name.isEmpty() || name.length() > 64 || !name.matches("[A-Za-z0-9._:-]+")) {
            throw new IllegalArgumentException(what + " must be 1 to 64 characters: letters, digits and . _ - :,"
                    + " was " + (name == null ? "null" : "'" + name + "'"));
        }
        return name;
    }

    @Override
    public String toString() {
        return "IngressRule[" + name + " " + (methods.isEmpty() ? "*" : methods) + " " + paths + ", limits "
                + limits.stream().map(Limit::policy).toList() + "]";
    }

    /** Builds an {@link IngressRule}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private final List<String> paths = new ArrayList<>();
        private final Set<String> methods = new LinkedHashSet<>();
        private RequestKey key = RequestKey.clientAddress();
        private final List<Limit> limits = new ArrayList<>();
        private ToLongFunction<IngressRequest> cost = request -> 1;
        private long fixedCost = 1;
        private final List<AddressRange> exempt = new ArrayList<>();

        private Builder(String name) {
            this.name = name;
        }

        /**
         * Adds path patterns the rule matches (every path if none is given).
         *
         * @param patterns patterns such as {@code /api/**}
         * @return this builder
         * @throws IllegalArgumentException if a pattern is blank or does not start with '/'
         */
        public Builder paths(String... patterns) {
            for (String pattern : patterns) {
                if (pattern == null || !pattern.startsWith("/")) {
                    throw new IllegalArgumentException("path pattern of rule '" + name + "' must start with '/', was "
                            + (pattern == null ? "null" : "'" + pattern + "'"));
                }
                paths.add(pattern);
            }
            return this;
        }

        /**
         * Adds methods the rule matches (every method if none is given).
         *
         * @param names method names, any case
         * @return this builder
         * @throws IllegalArgumentException if a name is blank
         */
        public Builder methods(String... names) {
            for (String method : names) {
                if (method == null || method.isBlank()) {
                    throw new IllegalArgumentException("method of rule '" + name + "' must not be blank");
                }
                methods.add(method.strip().toUpperCase(Locale.ROOT));
            }
            return this;
        }

        /**
         * What the limits are keyed by ({@link RequestKey#clientAddress()} by default).
         *
         * @param key the key
         * @return this builder
         * @throws IllegalArgumentException if the key is null
         */
        public Builder keyedBy(RequestKey key) {
            if (key == null) {
                throw new IllegalArgumentException("request key of rule '" + name + "' must not be null");
            }
            this.key = key;
            return this;
        }

        /**
         * Adds a limit, named in the RateLimit fields by the limiter's name.
         *
         * @param limiter the rate or concurrency limiter
         * @return this builder
         * @throws IllegalArgumentException as {@link #limit(String, NamedLimiter)}
         */
        public Builder limit(NamedLimiter limiter) {
            if (limiter == null) {
                throw new IllegalArgumentException("limiter of rule '" + name + "' must not be null");
            }
            return limit(
                    limiter.name().length() <= 64
                            ? limiter.name()
                            : limiter.name().substring(0, 64),
                    limiter);
        }

        /**
         * Adds a limit, named {@code policy} in the RateLimit fields; the rule's limits are taken all or nothing,
         * in the order added.
         *
         * @param policy 1 to 64 characters: letters, digits and {@code . _ - :}
         * @param limiter the rate or concurrency limiter; every limit of a rule must belong to one engine
         * @return this builder
         * @throws IllegalArgumentException if the name is malformed or already used in this rule, or the limiter is
         *     null
         */
        public Builder limit(String policy, NamedLimiter limiter) {
            checkName("policy name", policy);
            if (limiter == null) {
                throw new IllegalArgumentException("limiter of policy '" + policy + "' must not be null");
            }
            if (limits.stream().anyMatch(l -> l.policy().equals(policy))) {
                throw new IllegalArgumentException("rule '" + name + "' has policy '" + policy + "' already");
            }
            limits.add(new Limit(policy, limiter));
            return this;
        }

        /**
         * What each request costs, in permits of each limit (1 by default).
         *
         * @param permits 1 to the smallest limit of the rule's policies
         * @return this builder
         * @throws IllegalArgumentException if below 1 (the limits are checked at {@link #build()})
         */
        public Builder cost(long permits) {
            if (permits < 1) {
                throw new IllegalArgumentException(
                        "cost of rule '" + name + "' must be at least 1 permit, was " + permits);
            }
            this.fixedCost = permits;
            this.cost = request -> permits;
            return this;
        }

        /**
         * What each request costs, as a function of it (an upload's size class, say). A request whose cost is
         * out of range (below 1 or above a policy's limit) fails with {@link IllegalArgumentException}.
         *
         * @param permits the cost of a request
         * @return this builder
         * @throws IllegalArgumentException if the function is null
         */
        public Builder cost(ToLongFunction<IngressRequest> permits) {
            if (permits == null) {
                throw new IllegalArgumentException("cost function of rule '" + name + "' must not be null");
            }
            this.fixedCost = 1;
            this.cost = permits;
            return this;
        }

        /**
         * Adds address ranges whose clients the rule does not limit: health checkers, the office network.
         *
         * @param ranges addresses or CIDR blocks
         * @return this builder
         * @throws IllegalArgumentException if a range is malformed
         */
        public Builder exempt(String... ranges) {
            for (String range : ranges) {
                exempt.add(AddressRange.parse(range));
            }
            return this;
        }

        /**
         * Builds the rule.
         *
         * @return the rule
         * @throws IllegalArgumentException if it has no limit, or its fixed cost exceeds a policy's limit
         */
        public IngressRule build() {
            if (limits.isEmpty()) {
                throw new IllegalArgumentException("rule '" + name + "' needs at least one limit");
            }
            for (Limit limit : limits) {
                if (fixedCost > limit.limiter().policy().limit()) {
                    throw new IllegalArgumentException(
                            "cost " + fixedCost + " of rule '" + name + "' exceeds the limit "
                                    + limit.limiter().policy().limit() + " of policy '" + limit.policy() + "'");
                }
            }
            return new IngressRule(this);
        }
    }
}
