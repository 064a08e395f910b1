package dev.sluice.http;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.List;

/**
 * The response fields of draft-ietf-httpapi-ratelimit-headers-11 (Structured Field lists), the legacy
 * {@code X-RateLimit-*} fields, {@code Retry-After}, and the problem body. Policy names are letters, digits and
 * {@code . _ - :} (rules and limiters check them), so they go into Structured Field strings as they are.
 */
final class RateLimitFields {
    private static final long SECOND = 1_000_000_000L;

    private RateLimitFields() {}

    /** {@code "burst";q=100;w=60, "daily";q=1000;w=86400}: every policy of the rule. */
    static String policy(List<IngressRule.Limit> limits) {
        StringBuilder out = new StringBuilder();
        for (IngressRule.Limit limit : limits) {
            if (!out.isEmpty()) {
                out.append(", ");
            }
            LimitPolicy policy = limit.limiter().policy();
            out.append('"').append(limit.policy()).append("\";q=").append(policy.limit());
            if (policy instanceof ConcurrencyLimit) {
                out.append(";qu=\"concurrent-requests\"");
            } else {
                out.append(";w=").append(windowSeconds(policy));
            }
        }
        return out.toString();
    }

    /** {@code "burst";r=17;t=42}: the policy that decided, what is left of it, and when it is full or allows. */
    static String limit(String policy, long remaining, long seconds) {
        return "\"" + policy + "\";r=" + Math.max(0, remaining) + ";t=" + Math.max(0, seconds);
    }

    /** The seconds over which a policy's quota comes back: its window, or the time to refill from empty. */
    static long windowSeconds(LimitPolicy policy) {
        Duration window = switch (policy) {
            case FixedWindow p -> p.window();
            case SlidingWindowLog p -> p.window();
            case SlidingWindowCounter p -> p.window();
            case TokenBucket p -> scaled(p.refillPeriod(), p.capacity(), p.refillTokens());
            case Gcra p -> scaled(p.period(), p.burst(), p.rate());
            case ConcurrencyLimit p -> p.leaseTimeout();
            case AdaptiveRate p -> throw new IllegalArgumentException("limiters take no adaptive rate: " + p);
        };
        return Math.max(1, ceilSeconds(window.toNanos()));
    }

    private static Duration scaled(Duration period, long numerator, long denominator) {
        double nanos = (double) period.toNanos() * numerator / denominator;
        return Duration.ofNanos(nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(nanos));
    }

    /** Whole seconds, rounded up. */
    static long ceilSeconds(long nanos) {
        if (nanos <= 0) {
            return 0;
        }
        return nanos / SECOND + (nanos % SECOND == 0 ? 0 : 1);
    }

    /** Retry-After: whole seconds, rounded up, never 0. */
    static long retryAfterSeconds(long nanos) {
        return Math.max(1, ceilSeconds(nanos));
    }

    /** An RFC 9457 problem body. */
    static String problem(int status, String title, String detail, String rule, String policy, long retryAfter) {
        StringBuilder out = new StringBuilder(200).append("{\"type\":\"about:blank\",\"title\":");
        json(out, title).append(",\"status\":").append(status).append(",\"detail\":");
        json(out, detail).append(",\"rule\":");
        json(out, rule).append(",\"policy\":");
        json(out, policy).append(",\"retryAfter\":").append(retryAfter).append('}');
        return out.toString();
    }

    private static StringBuilder json(StringBuilder out, String value) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }
}
