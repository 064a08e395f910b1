package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;

/**
 * The policies of {@code dev.sluice.limit} as the configuration file writes them and the API shows them: one name
 * per policy ({@code token-bucket}, {@code gcra}, ...) and its parameters under the names of the policy's record
 * components, durations as text ({@code 500ms}). Reading and showing live here together so that what the API shows
 * is what the file takes.
 */
public final class Policies {
    /** The policies of a rate, by the name the file gives them. */
    public static final String RATE_POLICIES =
            "token-bucket, gcra, fixed-window, sliding-window-counter, sliding-window-log";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Duration SHORTEST = Duration.ofNanos(1);
    private static final long MAX_RATE = Long.MAX_VALUE;

    private Policies() {}

    /**
     * The policy of a limiter that {@code node} declares ({@code policy:} and its parameters; {@code extra} keys are
     * allowed beside them, for the caller to read): a rate policy or {@code concurrency}.
     */
    public static LimitPolicy limiter(ConfigNode node, String... extra) {
        String name = node.get("policy").requiredText("one of " + RATE_POLICIES + ", concurrency");
        if (name.equals("concurrency")) {
            node.only(with(extra, "policy", "maxConcurrent", "leaseTimeout"));
            return node.made(() -> ConcurrencyLimit.of(
                    node.get("maxConcurrent").requiredWhole(1, ConcurrencyLimit.MAX_CONCURRENT),
                    node.get("leaseTimeout").requiredDuration(SHORTEST, LimitPolicy.MAX_SPAN)));
        }
        return fixedRate(node, name, RATE_POLICIES + ", concurrency", extra);
    }

    /** The rate of a queue or group that {@code node} declares: a rate policy, or {@code adaptive} over one. */
    public static RatePolicy rate(ConfigNode node) {
        String name = node.get("policy").requiredText("one of " + RATE_POLICIES + ", adaptive");
        if (!name.equals("adaptive")) {
            return fixedRate(node, name, RATE_POLICIES + ", adaptive");
        }
        node.only("policy", "ceiling", "floor", "start", "cut", "climb");
        ConfigNode ceilingNode = node.get("ceiling");
        if (!ceilingNode.isMapping()) {
            throw ceilingNode.invalid("a mapping with the policy (" + RATE_POLICIES + ") and its parameters");
        }
        RatePolicy ceiling = fixedRate(
                ceilingNode, ceilingNode.get("policy").requiredText("one of " + RATE_POLICIES), RATE_POLICIES);
        double most = ceiling.perSecond();
        return node.made(() -> {
            AdaptiveRate rate = AdaptiveRate.of(ceiling);
            if (node.get("floor").present()) {
                rate = rate.withFloor(
                        node.get("floor").requiredNumber("a rate per second above 0 and at most " + most, 0, most));
            }
            if (node.get("start").present()) {
                rate = rate.withStart(
                        node.get("start").requiredNumber("a rate per second from the floor to " + most, 0, most));
            }
            if (node.get("cut").present()) {
                rate = rate.withCut(node.get("cut").requiredNumber("a factor above 0 and below 1", 0, 0.999_999_999));
            }
            return rate.withClimb(node.get("climb").duration(Duration.ofMillis(1), Duration.ofDays(1), rate.climb()));
        });
    }

    private static RatePolicy fixedRate(ConfigNode node, String name, String allowed, String... extra) {
        long most = LimitPolicy.MAX_PERMITS;
        Duration span = LimitPolicy.MAX_SPAN;
        return switch (name) {
            case "token-bucket" -> {
                node.only(with(extra, "policy", "capacity", "refillTokens", "refillPeriod"));
                long capacity = node.get("capacity").requiredWhole(1, most);
                yield node.made(() -> TokenBucket.of(
                        capacity,
                        node.get("refillTokens").whole(1, MAX_RATE, capacity),
                        node.get("refillPeriod").requiredDuration(SHORTEST, span)));
            }
            case "gcra" -> {
                node.only(with(extra, "policy", "rate", "period", "burst"));
                yield node.made(() -> Gcra.of(
                        node.get("rate").requiredWhole(1, MAX_RATE),
                        node.get("period").requiredDuration(SHORTEST, span),
                        node.get("burst").whole(1, most, 1)));
            }
            case "fixed-window", "sliding-window-counter", "sliding-window-log" -> {
                node.only(with(extra, "policy", "limit", "window"));
                long limit = node.get("limit")
                        .requiredWhole(1, name.equals("sliding-window-log") ? SlidingWindowLog.MAX_LIMIT : most);
                Duration window = node.get("window").requiredDuration(SHORTEST, span);
                yield node.made(() -> switch (name) {
                    case "fixed-window" -> FixedWindow.of(limit, window);
                    case "sliding-window-counter" -> SlidingWindowCounter.of(limit, window);
                    default -> SlidingWindowLog.of(limit, window);
                });
            }
            default -> throw node.get("policy").invalid("one of " + allowed);
        };
    }

    private static String[] with(String[] extra, String... keys) {
        String[] all = new String[keys.length + extra.length];
        System.arraycopy(keys, 0, all, 0, keys.length);
        System.arraycopy(extra, 0, all, keys.length, extra.length);
        return all;
    }

    /** The name the file gives {@code policy}'s kind: {@code token-bucket}, ..., {@code concurrency}. */
    public static String name(LimitPolicy policy) {
        return switch (policy) {
            case TokenBucket p -> "token-bucket";
            case Gcra p -> "gcra";
            case FixedWindow p -> "fixed-window";
            case SlidingWindowCounter p -> "sliding-window-counter";
            case SlidingWindowLog p -> "sliding-window-log";
            case ConcurrencyLimit p -> "concurrency";
            case AdaptiveRate p -> "adaptive";
        };
    }

    /** {@code policy} as the file writes it: {@code {"policy": "gcra", "rate": 10, "period": "1s", "burst": 5}}. */
    public static ObjectNode describe(LimitPolicy policy) {
        ObjectNode node = JSON.objectNode().put("policy", name(policy));
        switch (policy) {
            case TokenBucket p ->
                node.put("capacity", p.capacity())
                        .put("refillTokens", p.refillTokens())
                        .put("refillPeriod", text(p.refillPeriod()));
            case Gcra p ->
                node.put("rate", p.rate()).put("period", text(p.period())).put("burst", p.burst());
            case FixedWindow p -> node.put("limit", p.limit()).put("window", text(p.window()));
            case SlidingWindowCounter p -> node.put("limit", p.limit()).put("window", text(p.window()));
            case SlidingWindowLog p -> node.put("limit", p.limit()).put("window", text(p.window()));
            case ConcurrencyLimit p ->
                node.put("maxConcurrent", p.maxConcurrent()).put("leaseTimeout", text(p.leaseTimeout()));
            case AdaptiveRate p -> {
                node.set("ceiling", describe(p.ceiling()));
                node.put("floor", p.floor())
                        .put("start", p.start())
                        .put("cut", p.cut())
                        .put("climb", text(p.climb()));
            }
        }
        return node;
    }

    /** {@code duration} as the file writes it, in the largest unit that keeps it whole: {@code 1500ms}, {@code 2h}. */
    public static String text(Duration duration) {
        long nanos = duration.toNanos();
        String[] units = {"d", "h", "m", "s", "ms", "us"};
        long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        for (int i = 0; i < units.length; i++) {
            if (nanos != 0 && nanos % sizes[i] == 0) {
                return nanos / sizes[i] + units[i];
            }
        }
        return nanos + "ns";
    }
}
