package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One value of a configuration file with its key path ({@code limiters.stripe.rate}), read with the checks every
 * key needs: each problem is an {@link Invalid} (an {@link IllegalArgumentException}) whose message names the file, the key path, what
 * the key allows and what it was.
 */
public final class ConfigNode {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,15})\\s*(ns|us|ms|s|m|min|h|d)");

    /** What a duration allows, for messages. */
    public static final String DURATION_ALLOWED =
            "a duration: a whole number and a unit (ns, us, ms, s, m, h, d)," + " such as 500ms, 30s, 5m";

    /** A problem of a configuration file, its message naming the file and the key. */
    public static final class Invalid extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    private final String source;
    private final String path;
    private final JsonNode json;

    private ConfigNode(String source, String path, JsonNode json) {
        this.source = source;
        this.path = path;
        this.json = json == null ? MissingNode.getInstance() : json;
    }

    /** The top of the file {@code source} (its name, for messages), which must be a mapping or empty. */
    public static ConfigNode root(String source, JsonNode json) {
        ConfigNode root = new ConfigNode(source, "", json == null || json.isNull() ? MissingNode.getInstance() : json);
        if (root.present() && !root.json.isObject()) {
            throw new Invalid(source + ": the file must be a mapping of keys (server, redis, tokens,"
                    + " anonymous, dashboard, queues, limiters, chains), was " + root.kind());
        }
        return root;
    }

    /** The key path, such as {@code limiters.stripe.rate}; empty at the top. */
    public String path() {
        return path;
    }

    /** Whether the key is in the file with a value (a key written with no value counts as absent). */
    public boolean present() {
        return !json.isMissingNode() && !json.isNull();
    }

    /** The value of {@code key} of this mapping (absent if this is absent). */
    public ConfigNode get(String key) {
        return new ConfigNode(source, path.isEmpty() ? key : path + "." + key, json.get(key));
    }

    /**
     * Checks that this mapping has no key but {@code allowed}.
     *
     * @return this
     */
    public ConfigNode only(String... allowed) {
        Set<String> keys = Set.of(allowed);
        if (present()) {
            mapping();
            json.fieldNames().forEachRemaining(key -> {
                if (!keys.contains(key)) {
                    throw new Invalid(source + ": " + (path.isEmpty() ? "" : path + ".") + key
                            + ": unknown key (allowed " + (path.isEmpty() ? "at the top" : "in " + path) + ": "
                            + String.join(", ", allowed) + ")");
                }
            });
        }
        return this;
    }

    /** The entries of this mapping in file order; none if absent. */
    public Map<String, ConfigNode> entries() {
        Map<String, ConfigNode> entries = new LinkedHashMap<>();
        if (present()) {
            mapping();
            json.fieldNames().forEachRemaining(key -> entries.put(key, get(key)));
        }
        return entries;
    }

    /** The items of this sequence; none if absent. */
    public List<ConfigNode> items(String allowed) {
        List<ConfigNode> items = new ArrayList<>();
        if (present()) {
            if (!json.isArray()) {
                throw invalid("a list of " + allowed);
            }
            for (int i = 0; i < json.size(); i++) {
                items.add(new ConfigNode(source, path + "[" + i + "]", json.get(i)));
            }
        }
        return items;
    }

    /** Whether this value is text. */
    public boolean isText() {
        return json.isTextual();
    }

    /** Whether this value is a mapping (rather than a single value). */
    public boolean isMapping() {
        return json.isObject();
    }

    /** This value as text, or {@code ifAbsent}. */
    public String text(String allowed, String ifAbsent) {
        if (!present()) {
            return ifAbsent;
        }
        if (!json.isTextual()) {
            throw invalid(allowed);
        }
        return json.asText();
    }

    /** This value as text, which must be there. */
    public String requiredText(String allowed) {
        require(allowed);
        return text(allowed, null);
    }

    /** This value, one of {@code choices}, or {@code ifAbsent}. */
    public String choice(String ifAbsent, String... choices) {
        String allowed = "one of " + String.join(", ", choices);
        String text = text(allowed, ifAbsent);
        if (text != null && !Arrays.asList(choices).contains(text)) {
            throw invalid(allowed);
        }
        return text;
    }

    /** This value as a whole number from {@code min} to {@code max}, or {@code ifAbsent}. */
    public long whole(long min, long max, long ifAbsent) {
        if (!present()) {
            return ifAbsent;
        }
        if (!json.isIntegralNumber() || !json.canConvertToLong() || json.asLong() < min || json.asLong() > max) {
            throw invalid("a whole number from " + min + " to " + max);
        }
        return json.asLong();
    }

    /** This value as a whole number from {@code min} to {@code max}, which must be there. */
    public long requiredWhole(long min, long max) {
        require("a whole number from " + min + " to " + max);
        return whole(min, max, 0);
    }

    /** This value as a number above {@code above} and at most {@code atMost}, which must be there. */
    public double requiredNumber(String allowed, double above, double atMost) {
        require(allowed);
        if (!json.isNumber() || !(json.asDouble() > above) || json.asDouble() > atMost) {
            throw invalid(allowed);
        }
        return json.asDouble();
    }

    /** This value as true or false, or {@code ifAbsent}. */
    public boolean bool(boolean ifAbsent) {
        if (!present()) {
            return ifAbsent;
        }
        if (!json.isBoolean()) {
            throw invalid("true or false");
        }
        return json.asBoolean();
    }

    /** This value as a duration ({@link #DURATION_ALLOWED}) from {@code min} to {@code max}, or {@code ifAbsent}. */
    public Duration duration(Duration min, Duration max, Duration ifAbsent) {
        if (!present()) {
            return ifAbsent;
        }
        String allowed = DURATION_ALLOWED + ", from " + DurationText.format(min) + " to " + DurationText.format(max);
        Duration duration = json.isTextual() ? parseDuration(json.asText().strip()) : null;
        if (duration == null || duration.compareTo(min) < 0 || duration.compareTo(max) > 0) {
            throw invalid(allowed);
        }
        return duration;
    }

    /** This value as a duration from {@code min} to {@code max}, which must be there. */
    public Duration requiredDuration(Duration min, Duration max) {
        require(DURATION_ALLOWED);
        return duration(min, max, null);
    }

    /** {@code text} such as {@code 500ms} as a duration, or null if it is not one. */
    static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            return null;
        }
        long amount = Long.parseLong(m.group(1));
        try {
            return switch (m.group(2)) {
                case "ns" -> Duration.ofNanos(amount);
                case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1_000L));
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m", "min" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        } catch (ArithmeticException tooLong) {
            return null;
        }
    }

    /**
     * What {@code make} makes from this key's values (a policy, options), checked by the library: a value or a
     * combination of values it refuses is a problem of this key, with the library's message.
     */
    public <T> T made(Supplier<T> make) {
        try {
            return make.get();
        } catch (Invalid alreadySaid) {
            throw alreadySaid;
        } catch (IllegalArgumentException refused) {
            throw problem(refused.getMessage());
        }
    }

    /** A problem with this key: {@code problem} is a whole clause ({@code names an unknown limiter}). */
    public Invalid problem(String problem) {
        return new Invalid(source + ": " + (path.isEmpty() ? "" : path + ": ") + problem);
    }

    /** The problem of a value that is not {@code allowed}. */
    public Invalid invalid(String allowed) {
        return problem("must be " + allowed + ", was " + shown());
    }

    private void require(String allowed) {
        if (!present()) {
            throw problem("is required: " + allowed);
        }
    }

    private void mapping() {
        if (!json.isObject()) {
            throw problem("must be a mapping of keys, was " + shown());
        }
    }

    private String shown() {
        if (json.isTextual()) {
            return "'" + json.asText() + "'";
        }
        return json.isValueNode() ? json.asText() : kind();
    }

    private String kind() {
        return json.isArray()
                ? (json.isEmpty() ? "an empty list" : "a list")
                : json.isObject() ? "a mapping" : "'" + json.asText() + "'";
    }
}
