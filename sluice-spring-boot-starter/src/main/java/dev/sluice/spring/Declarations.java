package dev.sluice.spring;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.WorkerOptions;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Turns the bound {@link SluiceProperties} into Sluice's values. Every check names the full property, so that a
 * mistake in {@code application.yml} is found by its name; the core's own range checks stay the last word.
 */
final class Declarations {
    static final String DURATION = "a positive duration such as 500ms, 10s, 1m or PT10S";
    private static final String COUNT = "a whole number, at least 1";

    /** The policies by their property value, in the documented order, each with the properties it takes. */
    private static final Map<String, Kind> KINDS = kinds();

    private Declarations() {}

    /** A policy as written in properties: which fields it takes and how it is made from them. */
    private record Kind(String name, List<String> fields, Function<Fields, LimitPolicy> make) {}

    /** The policy fields of one declaration, read with their full property names. */
    private record Fields(String prefix, Map<String, Object> given) {
        long count(String field, Long fallback) {
            return atLeastOne(prefix + field, given(field, fallback, COUNT));
        }

        Duration span(String field, Duration fallback) {
            return positive(prefix + field, given(field, fallback, DURATION));
        }

        @SuppressWarnings("unchecked")
        private <V> V given(String field, V fallback, String allowed) {
            V value = (V) given.get(field);
            if (value != null) {
                return value;
            }
            if (fallback == null) {
                throw new SluicePropertyException(
                        prefix + field, null, "policy '" + given.get("policy") + "' needs it", allowed);
            }
            return fallback;
        }
    }

    private static Map<String, Kind> kinds() {
        Map<String, Kind> kinds = new LinkedHashMap<>();
        List<Kind> all = List.of(
                new Kind(
                        "token-bucket",
                        List.of("limit", "period", "refill"),
                        f -> TokenBucket.of(
                                f.count("limit", null),
                                f.count("refill", f.count("limit", null)),
                                f.span("period", null))),
                new Kind(
                        "fixed-window",
                        List.of("limit", "window"),
                        f -> FixedWindow.of(f.count("limit", null), f.span("window", null))),
                new Kind(
                        "sliding-window-log",
                        List.of("limit", "window"),
                        f -> SlidingWindowLog.of(f.count("limit", null), f.span("window", null))),
                new Kind(
                        "sliding-window-counter",
                        List.of("limit", "window"),
                        f -> SlidingWindowCounter.of(f.count("limit", null), f.span("window", null))),
                new Kind(
                        "gcra",
                        List.of("limit", "period", "burst"),
                        f -> Gcra.of(
                                f.count("limit", null),
                                f.span("period", null),
                                f.count("burst", f.count("limit", null)))),
                new Kind(
                        "concurrency",
                        List.of("limit", "lease-timeout"),
                        f -> ConcurrencyLimit.of(
                                f.count("limit", null), f.span("lease-timeout", Duration.ofMinutes(1)))));
        all.forEach(kind -> kinds.put(kind.name(), kind));
        return Collections.unmodifiableMap(kinds);
    }

    /**
     * The policy of {@code sluice.limiters.NAME}.
     *
     * @throws SluicePropertyException naming the first bad property
     */
    static LimitPolicy policy(String name, SluiceProperties.Limiter limiter) {
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("policy", limiter.policy());
        given.put("limit", limiter.limit());
        given.put("window", limiter.window());
        given.put("period", limiter.period());
        given.put("refill", limiter.refill());
        given.put("burst", limiter.burst());
        given.put("lease-timeout", limiter.leaseTimeout());
        return policy("sluice.limiters." + name + ".", given, allPolicies());
    }

    /**
     * A queue's or a group's rate, written under {@code prefix} (ending in {@code rate.}); null if none.
     *
     * @throws SluicePropertyException naming the first bad property, a concurrency policy included
     */
    static RatePolicy rate(String prefix, SluiceProperties.Rate rate) {
        if (rate == null) {
            return null;
        }
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("policy", rate.policy());
        given.put("limit", rate.limit());
        given.put("window", rate.window());
        given.put("period", rate.period());
        given.put("refill", rate.refill());
        given.put("burst", rate.burst());
        RatePolicy ceiling = (RatePolicy) policy(prefix, given, ratePolicies());
        SluiceProperties.Adaptive adaptive = rate.adaptive();
        if (adaptive == null || Boolean.FALSE.equals(adaptive.enabled())) {
            return ceiling;
        }
        String at = prefix + "adaptive.";
        AdaptiveRate made = AdaptiveRate.of(ceiling);
        if (adaptive.floor() != null) {
            AdaptiveRate before = made;
            made = core(at + "floor", adaptive.floor(), () -> before.withFloor(adaptive.floor()));
        }
        if (adaptive.start() != null) {
            AdaptiveRate before = made;
            made = core(at + "start", adaptive.start(), () -> before.withStart(adaptive.start()));
        }
        if (adaptive.cut() != null) {
            AdaptiveRate before = made;
            made = core(at + "cut", adaptive.cut(), () -> before.withCut(adaptive.cut()));
        }
        if (adaptive.climb() != null) {
            AdaptiveRate before = made;
            made = core(at + "climb", adaptive.climb(), () -> before.withClimb(adaptive.climb()));
        }
        return made;
    }

    private static LimitPolicy policy(String prefix, Map<String, Object> given, List<String> allowed) {
        String policyName = (String) given.get("policy");
        Kind kind = policyName == null ? null : KINDS.get(policyName.strip().toLowerCase(Locale.ROOT));
        if (kind == null || !allowed.contains(kind.name())) {
            throw new SluicePropertyException(
                    prefix + "policy",
                    policyName,
                    policyName == null ? "every limit needs a policy" : "no such policy here",
                    oneOf(allowed));
        }
        for (Map.Entry<String, Object> field : given.entrySet()) {
            if (field.getValue() != null
                    && !field.getKey().equals("policy")
                    && !kind.fields().contains(field.getKey())) {
                throw SluicePropertyException.withAction(
                        prefix + field.getKey(),
                        field.getValue(),
                        "policy '" + kind.name() + "' does not take it",
                        "Remove '" + prefix + field.getKey() + "': policy '" + kind.name() + "' takes "
                                + listed(kind.fields(), "and") + ".");
            }
        }
        given.put("policy", kind.name());
        Fields fields = new Fields(prefix, given);
        return core(prefix + "policy", kind.name(), () -> kind.make().apply(fields));
    }

    /**
     * The options of {@code sluice.limiters.NAME}.
     *
     * @throws SluicePropertyException naming the first bad property
     */
    static LimiterOptions limiterOptions(String name, SluiceProperties.Limiter limiter) {
        String prefix = "sluice.limiters." + name + ".";
        LimiterOptions options = LimiterOptions.defaults();
        if (limiter.maxKeys() != null) {
            int maxKeys = limiter.maxKeys();
            options = core(
                    prefix + "max-keys",
                    maxKeys,
                    () -> LimiterOptions.builder().maxKeys(maxKeys).build());
        }
        if (limiter.whenUnavailable() != null) {
            options = options.toBuilder()
                    .whenUnavailable(whenUnavailable(prefix + "when-unavailable", limiter.whenUnavailable()))
                    .build();
        }
        return options;
    }

    static WhenUnavailable whenUnavailable(String property, String value) {
        String allowed = "fail-closed, fail-open or fall-back:SHARE (SHARE above 0 and at most 1, such as 0.25)";
        String text = value.strip().toLowerCase(Locale.ROOT);
        switch (text) {
            case "fail-closed":
                return WhenUnavailable.failClosed();
            case "fail-open":
                return WhenUnavailable.failOpen();
            default:
                if (text.startsWith("fall-back:")) {
                    double share;
                    try {
                        share = Double.parseDouble(text.substring("fall-back:".length()));
                    } catch (NumberFormatException e) {
                        throw new SluicePropertyException(property, value, "the share is not a number", allowed);
                    }
                    if (!(share > 0 && share <= 1)) {
                        throw new SluicePropertyException(
                                property, value, "the share must be above 0 and at most 1", allowed);
                    }
                    return WhenUnavailable.fallBack(share);
                }
                throw new SluicePropertyException(property, value, "not an answer for an unavailable engine", allowed);
        }
    }

    /**
     * The options of {@code sluice.queues.NAME}.
     *
     * @throws SluicePropertyException naming the first bad property
     */
    static QueueOptions queueOptions(String name, SluiceProperties.Queue queue) {
        String prefix = "sluice.queues." + name + ".";
        QueueOptions.Builder builder = QueueOptions.builder().rate(rate(prefix + "rate.", queue.rate()));
        if (queue.concurrency() != null) {
            builder.concurrency(atLeastOne(prefix + "concurrency", queue.concurrency()));
        }
        if (queue.maxQueued() != null) {
            builder.maxQueued(atLeastOne(prefix + "max-queued", queue.maxQueued()));
        }
        SluiceProperties.Group group = queue.group();
        if (group != null) {
            String groupPrefix = prefix + "group.";
            GroupLimits limits = GroupLimits.builder()
                    .rate(rate(groupPrefix + "rate.", group.rate()))
                    .build();
            if (group.concurrency() != null) {
                limits = limits.toBuilder()
                        .concurrency(atLeastOne(groupPrefix + "concurrency", group.concurrency()))
                        .build();
            }
            if (group.maxQueued() != null) {
                limits = limits.toBuilder()
                        .maxQueued(atLeastOne(groupPrefix + "max-queued", group.maxQueued()))
                        .build();
            }
            builder.groupDefaults(limits);
        }
        if (queue.jobDefaults() != null) {
            builder.jobDefaults(jobDefaults(prefix + "job-defaults.", queue.jobDefaults()));
        }
        return core(prefix.substring(0, prefix.length() - 1), name, builder::build);
    }

    private static JobOptions jobDefaults(String prefix, SluiceProperties.JobDefaults defaults) {
        JobOptions.Builder options = JobOptions.builder();
        if (defaults.attempts() != null) {
            int attempts = atLeastOne(prefix + "attempts", defaults.attempts());
            core(prefix + "attempts", attempts, () -> options.attempts(attempts));
        }
        if (defaults.backoff() != null) {
            options.backoff(backoff(prefix + "backoff.", defaults.backoff()));
        }
        if (defaults.timeout() != null) {
            options.timeout(positive(prefix + "timeout", defaults.timeout()));
        }
        if (defaults.keepCompleted() != null) {
            options.keepCompleted(retention(prefix + "keep-completed.", defaults.keepCompleted()));
        }
        if (defaults.keepFailed() != null) {
            options.keepFailed(retention(prefix + "keep-failed.", defaults.keepFailed()));
        }
        return core(prefix.substring(0, prefix.length() - 1), defaults, options::build);
    }

    private static Backoff backoff(String prefix, SluiceProperties.Backoff backoff) {
        String allowed = "none, fixed, exponential or exponential-with-jitter";
        String type = backoff.type() == null ? null : backoff.type().strip().toLowerCase(Locale.ROOT);
        if (type == null) {
            throw new SluicePropertyException(prefix + "type", null, "a backoff needs a type", allowed);
        }
        return switch (type) {
            case "none" -> Backoff.none();
            case "fixed" -> Backoff.fixed(needed(prefix + "delay", backoff.delay(), type));
            case "exponential" -> exponential(prefix, backoff, type, Backoff::exponential);
            case "exponential-with-jitter" -> exponential(prefix, backoff, type, Backoff::exponentialWithJitter);
            default -> throw new SluicePropertyException(prefix + "type", backoff.type(), "no such backoff", allowed);
        };
    }

    private static Backoff exponential(
            String prefix,
            SluiceProperties.Backoff backoff,
            String type,
            BiFunction<Duration, Duration, Backoff> make) {
        Duration base = needed(prefix + "delay", backoff.delay(), type);
        Duration cap = needed(prefix + "max", backoff.max(), type);
        return core(prefix + "max", cap, () -> make.apply(base, cap));
    }

    private static Duration needed(String property, Duration value, String type) {
        if (value == null) {
            throw new SluicePropertyException(property, null, "backoff '" + type + "' needs it", DURATION);
        }
        return positive(property, value);
    }

    private static Retention retention(String prefix, SluiceProperties.Keep keep) {
        int count = keep.count() == null ? Integer.MAX_VALUE : keep.count();
        if (count < 0) {
            throw new SluicePropertyException(prefix + "count", count, "must not be negative", "0 or more");
        }
        Duration age = keep.age() == null ? null : positive(prefix + "age", keep.age());
        return new Retention(count, age);
    }

    /**
     * The schedule of {@code sluice.queues.NAME.repeat[INDEX]}.
     *
     * @throws SluicePropertyException naming the first bad property
     */
    static Schedule schedule(String prefix, SluiceProperties.Repeat repeat) {
        if ((repeat.cron() == null) == (repeat.every() == null)) {
            throw SluicePropertyException.withAction(
                    prefix + "cron",
                    repeat.cron(),
                    repeat.cron() == null ? "a repeatable job needs a schedule" : "'every' is set as well",
                    "Set either '" + prefix + "cron' (such as 0 3 * * *) or '" + prefix + "every' (such as 10m).");
        }
        if (repeat.every() != null) {
            return Schedule.fixedRate(positive(prefix + "every", repeat.every()));
        }
        ZoneId zone;
        try {
            zone = repeat.zone() == null ? ZoneOffset.UTC : ZoneId.of(repeat.zone());
        } catch (DateTimeException e) {
            throw new SluicePropertyException(
                    prefix + "zone", repeat.zone(), "not a time zone", "a zone id such as UTC or Europe/Paris");
        }
        return core(prefix + "cron", repeat.cron(), () -> Schedule.cron(repeat.cron(), zone));
    }

    /**
     * The options of the worker of {@code sluice.queues.NAME}, started by the application context.
     *
     * @throws SluicePropertyException naming the first bad property
     */
    static WorkerOptions workerOptions(String name, SluiceProperties.Worker worker) {
        String prefix = "sluice.queues." + name + ".worker.";
        int concurrency = worker.concurrency() == null ? 1 : worker.concurrency();
        WorkerOptions options =
                core(prefix + "concurrency", concurrency, () -> WorkerOptions.concurrency(concurrency)).toBuilder()
                        .autoStart(false)
                        .build();
        if (worker.leaseTime() != null) {
            WorkerOptions base = options;
            options = core(
                    prefix + "lease-time",
                    worker.leaseTime(),
                    () -> base.toBuilder().leaseTime(worker.leaseTime()).build());
        }
        if (worker.maxStalls() != null) {
            WorkerOptions base = options;
            options = core(
                    prefix + "max-stalls",
                    worker.maxStalls(),
                    () -> base.toBuilder().maxStalls(worker.maxStalls()).build());
        }
        return options;
    }

    private static List<String> allPolicies() {
        return List.copyOf(KINDS.keySet());
    }

    private static List<String> ratePolicies() {
        return KINDS.keySet().stream().filter(k -> !k.equals("concurrency")).toList();
    }

    private static String oneOf(List<String> names) {
        return "one of " + listed(names, "or");
    }

    /** {@code names} as a sentence writes them: "a, b or c" with {@code last} "or". */
    static String listed(List<String> names, String last) {
        return names.size() == 1
                ? names.getFirst()
                : String.join(", ", names.subList(0, names.size() - 1)) + " " + last + " " + names.getLast();
    }

    static <N extends Number> N atLeastOne(String property, N value) {
        if (value.longValue() < 1) {
            throw new SluicePropertyException(property, value, "must be at least 1", COUNT);
        }
        return value;
    }

    static Duration positive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new SluicePropertyException(property, value, "must be above zero", DURATION);
        }
        return value;
    }

    /** Runs a core factory, whose range checks name the bad value, and reports a refusal as {@code property}'s. */
    static <T> T core(String property, Object value, Supplier<T> make) {
        try {
            return make.get();
        } catch (SluicePropertyException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw SluicePropertyException.withAction(
                    property, value, e.getMessage(), "Change '" + property + "' so that it meets the condition above.");
        }
    }
}
