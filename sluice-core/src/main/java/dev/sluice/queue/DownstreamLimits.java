package dev.sluice.queue;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What a downstream's HTTP answer said of its limits: how long to wait ({@code Retry-After}, seconds or an HTTP date)
 * and what is left of its quota, from the IETF {@code RateLimit} field ({@code "name";r=17;t=42}, the most restrictive
 * of its items), the earlier drafts' {@code RateLimit: limit=100, remaining=17, reset=42} and {@code
 * RateLimit-Remaining} / {@code RateLimit-Reset}, or the common {@code X-RateLimit-Remaining} / {@code
 * X-RateLimit-Reset} (a reset there may be seconds from now or a Unix time, in seconds or milliseconds). A field that
 * cannot be read counts as absent: an answer is never refused for its headers.
 *
 * <pre>{@code
 * DownstreamLimits limits = DownstreamLimits.of(response.headers().map(), clock.instant());
 * limits.tell(ctx, Result.Scope.GROUP);                 // bounds the group's adaptive rate by the quota
 * if (response.statusCode() == 429) return limits.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(1));
 * }</pre>
 */
public final class DownstreamLimits {
    private static final long EPOCH_SECONDS_FROM = 1_000_000_000L; // 2001: a reset this large is a Unix time
    private static final long EPOCH_MILLIS_FROM = 1_000_000_000_000L;
    private static final long LONGEST_SECONDS = 2_000_000_000L; // about 63 years, within what quota() takes

    private final Duration retryAfter;
    private final long remaining;
    private final Duration resetIn;

    private DownstreamLimits(Duration retryAfter, long remaining, Duration resetIn) {
        this.retryAfter = retryAfter;
        this.remaining = remaining;
        this.resetIn = resetIn;
    }

    /**
     * Reads the fields of an answer through {@code header}, which gives a field's value by its name (compared without
     * case, as HTTP names are) or null when the answer has none.
     *
     * @param header a field's value by name
     * @param now when the answer came, for an HTTP date or a Unix time
     * @return what the answer said; nothing where it said nothing readable
     */
    public static DownstreamLimits of(Function<String, String> header, Instant now) {
        if (header == null || now == null) {
            throw new IllegalArgumentException("header and now are required, got " + header + " and " + now);
        }
        Duration retryAfter = retryAfter(header.apply("Retry-After"), now);
        long[] quota = structured(header.apply("RateLimit"));
        if (quota == null) {
            quota = pair(header.apply("RateLimit-Remaining"), header.apply("RateLimit-Reset"), null);
        }
        if (quota == null) {
            quota = pair(header.apply("X-RateLimit-Remaining"), header.apply("X-RateLimit-Reset"), now);
        }
        return quota == null
                ? new DownstreamLimits(retryAfter, -1, null)
                : new DownstreamLimits(retryAfter, quota[0], Duration.ofSeconds(quota[1]));
    }

    /**
     * As {@link #of(Function, Instant)}, from a map of fields to their values (as {@code java.net.http.HttpHeaders.map()}
     * gives it), its names compared without case; of a field given more than once, the first value.
     *
     * @param headers the answer's fields
     * @param now when the answer came
     * @return what the answer said
     */
    public static DownstreamLimits of(Map<String, List<String>> headers, Instant now) {
        if (headers == null) {
            throw new IllegalArgumentException("headers are required, got null");
        }
        Map<String, String> first = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> {
            if (name != null && values != null && !values.isEmpty()) {
                first.putIfAbsent(name, values.get(0));
            }
        });
        return of(first::get, now);
    }

    /**
     * How long the answer asked to wait.
     *
     * @return its {@code Retry-After}, zero or more; empty if it gave none readable
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /**
     * What is left of the quota.
     *
     * @return requests left until it resets; empty if the answer did not say
     */
    public OptionalLong remaining() {
        return remaining < 0 ? OptionalLong.empty() : OptionalLong.of(remaining);
    }

    /**
     * When the quota resets.
     *
     * @return the time until then, above zero; empty if the answer did not say
     */
    public Optional<Duration> resetIn() {
        return Optional.ofNullable(resetIn);
    }

    /**
     * Tells the nearest adaptive rate of {@code scope} the quota the answer announced ({@link JobContext#quota});
     * nothing if it announced none.
     *
     * @param context the attempt's context
     * @param scope whose rate the quota bounds
     */
    public void tell(JobContext<?> context, Result.Scope scope) {
        if (context == null || scope == null) {
            throw new IllegalArgumentException("context and scope are required, got " + context + " and " + scope);
        }
        if (resetIn != null) {
            context.quota(scope, remaining, resetIn);
        }
    }

    /**
     * The result of a refusal ({@link Result#rateLimited}): the answer's {@code Retry-After}, else, when the quota is
     * spent, until it resets, else {@code otherwise}.
     *
     * @param scope what to pause: the job's group or the whole queue
     * @param otherwise the wait when the answer says none
     * @return the result
     */
    public Result rateLimited(Result.Scope scope, Duration otherwise) {
        Duration wait = retryAfter != null ? retryAfter : remaining == 0 && resetIn != null ? resetIn : otherwise;
        return Result.rateLimited(scope, wait);
    }

    /**
     * The fields read, for people.
     *
     * @return for example {@code DownstreamLimits{retryAfter=PT2S, remaining=0, resetIn=PT42S}}
     */
    @Override
    public String toString() {
        return "DownstreamLimits{retryAfter=" + retryAfter + ", remaining=" + remaining() + ", resetIn=" + resetIn
                + "}";
    }

    private static Duration retryAfter(String value, Instant now) {
        if (value == null) {
            return null;
        }
        String text = value.trim();
        long seconds = wholeNumber(text);
        if (seconds >= 0) {
            return Duration.ofSeconds(Math.min(seconds, LONGEST_SECONDS));
        }
        try {
            Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant();
            return at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * The most restrictive quota of a {@code RateLimit} field: its items' {@code r} and {@code t} (the current draft),
     * or its {@code remaining} and {@code reset} (earlier ones); null if none is readable.
     */
    private static long[] structured(String value) {
        if (value == null) {
            return null;
        }
        long[] tightest = null;
        long[] legacy = {-1, -1};
        for (String item : value.split(",")) {
            long[] quota = {-1, -1};
            for (String part : item.split(";")) {
                String[] pair = part.trim().split("=", 2);
                if (pair.length == 2) {
                    long number = wholeNumber(pair[1].trim());
                    switch (pair[0].trim()) {
                        case "r" -> quota[0] = number;
                        case "t" -> quota[1] = number;
                        case "remaining" -> legacy[0] = number;
                        case "reset" -> legacy[1] = number;
                        default -> {}
                    }
                }
            }
            if (readable(quota) && (tightest == null || perSecond(quota) < perSecond(tightest))) {
                tightest = quota;
            }
        }
        return tightest != null ? tightest : readable(legacy) ? legacy : null;
    }

    private static long[] pair(String remainingText, String resetText, Instant now) {
        if (remainingText == null || resetText == null) {
            return null;
        }
        long[] quota = {wholeNumber(remainingText.trim()), wholeNumber(resetText.trim())};
        if (now != null && quota[1] >= EPOCH_SECONDS_FROM) {
            long epochSeconds = quota[1] >= EPOCH_MILLIS_FROM ? quota[1] / 1000 : quota[1];
            quota[1] = epochSeconds - now.getEpochSecond();
        }
        return readable(quota) ? quota : null;
    }

    private static boolean readable(long[] quota) {
        return quota[0] >= 0 && quota[1] > 0 && quota[1] <= LONGEST_SECONDS;
    }

    private static double perSecond(long[] quota) {
        return (double) quota[0] / quota[1];
    }

    /** A whole number of 0 or more written in decimal digits; -1 if it is not one (or too long to be one). */
    private static long wholeNumber(String text) {
        if (text.isEmpty() || text.length() > 18) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(text);
    }
}
