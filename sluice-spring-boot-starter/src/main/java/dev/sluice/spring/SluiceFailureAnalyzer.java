package dev.sluice.spring;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Turns a malformed {@code sluice.*} property into one startup message: which property, what was wrong, what to
 * do. It reads a {@link SluicePropertyException} (a value Sluice refused), a {@link BindException} under {@code
 * sluice.} (a value of the wrong type, such as a duration that is not one, or list elements after a gap in the
 * indexes), a {@link RedisUnreachableException} (Redis down at startup, with the fail-closed limiters that need it) and a {@link
 * SluiceAnnotationException} (an annotation naming what does not exist, with where it stands); it runs before
 * Spring Boot's own analyzers, and leaves every other failure to them.
 */
final class SluiceFailureAnalyzer implements FailureAnalyzer, Ordered {
    private static final String DURATION = "a duration such as 500ms, 10s, 1m or PT10S";
    private static final String WHOLE = "a whole number";
    private static final String BOOLEAN = "true or false";
    private static final Map<Class<?>, String> TYPES = Map.of(
            Duration.class, DURATION,
            Long.class, WHOLE,
            Integer.class, WHOLE,
            long.class, WHOLE,
            int.class, WHOLE,
            Double.class, "a number",
            boolean.class, BOOLEAN,
            Boolean.class, BOOLEAN);
    private static final ConfigurationPropertyName SLUICE = ConfigurationPropertyName.of("sluice");
    private static final Pattern INDEX = Pattern.compile("^\\[(\\d+)]");

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SluicePropertyException e) {
                return analysis(e.property(), e.value(), e.problem(), e.action(), failure);
            }
            if (cause instanceof RedisUnreachableException e) {
                return unreachable(e, failure);
            }
            if (cause instanceof SluiceAnnotationException e) {
                return new FailureAnalysis(e.description(), e.action(), failure);
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException e && (SLUICE.equals(e.getName()) || SLUICE.isAncestorOf(e.getName()))) {
                if (!(e.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
                    return unreadable(e, failure);
                }
                String bound = e.getName().toString();
                ConfigurationProperty first = new TreeSet<>(unbound.getUnboundProperties()).first();
                Matcher index = INDEX.matcher(first.getName().toString().substring(bound.length()));
                return index.find()
                        ? afterGap(bound, index.group(1), first, failure)
                        : unknown(unbound.getUnboundProperties(), failure);
            }
        }
        return null;
    }

    /** A value of the wrong type, such as a duration that is not one. */
    private static FailureAnalysis unreadable(BindException e, Throwable failure) {
        String property = e.getName().toString();
        ConfigurationProperty bound = e.getProperty();
        Object value = bound == null ? null : bound.getValue();
        Class<?> type = e.getTarget().getType().resolve(Object.class);
        String kind;
        String allowed;
        if (List.class.isAssignableFrom(type)) {
            kind = "a list";
            allowed = kind + ": in YAML one '- ' item per element, in properties " + property + "[0], " + property
                    + "[1] and so on";
        } else if (Map.class.isAssignableFrom(type)) {
            kind = "a map";
            allowed = kind + ": in YAML one 'NAME: value' line per entry, in properties " + property + ".NAME";
        } else {
            kind = TYPES.getOrDefault(type, "a value of type " + type.getName());
            allowed = kind;
        }
        return analysis(
                property,
                value == null ? null : raw(property, value),
                "cannot be read as " + kind,
                "Set '" + property + "' to " + allowed + ".",
                failure);
    }

    /**
     * {@code first}, an element of {@code list} after a gap in its indexes: Spring Boot stops reading a list at
     * its first missing index, so it did not bind the elements after it.
     */
    private static FailureAnalysis afterGap(String list, String index, ConfigurationProperty first, Throwable failure) {
        return analysis(
                first.getName().toString(),
                raw(first.getName().toString(), first.getValue()),
                "it was not read, because an element of '" + list + "' before [" + index + "] is missing, and Spring"
                        + " Boot reads a list's elements from [0] up to the first missing index",
                "Number the elements of '" + list + "' from [0] without gaps.",
                failure);
    }

    /** Properties under {@code sluice} that Sluice does not read, such as a misspelled key. */
    private static FailureAnalysis unknown(Set<ConfigurationProperty> unknown, Throwable failure) {
        TreeSet<ConfigurationProperty> sorted = new TreeSet<>(unknown);
        ConfigurationProperty first = sorted.first();
        String property = first.getName().toString();
        PropertyKeys.Allowed allowed = PropertyKeys.around(first.getName());
        String problem = "Sluice has no such property, and would ignore it";
        if (sorted.size() > 1) {
            List<String> others =
                    sorted.stream().skip(1).map(p -> p.getName().toString()).toList();
            problem += " (nor " + Declarations.listed(others, "or") + ")";
        }
        String action;
        if (allowed.nearest() != null) {
            action = "Did you mean '" + allowed.nearest() + "'? Under '" + allowed.parent() + "' Sluice reads "
                    + Declarations.listed(allowed.keys(), "and") + ".";
        } else {
            action = "Remove '" + property + "': '" + allowed.parent() + "' has no properties under it.";
        }
        return analysis(property, raw(property, first.getValue()), problem, action, failure);
    }

    /**
     * A value as configured, unless it may be an API token's secret: under {@code sluice.dashboard.tokens}, only a
     * token's name and scope are shown.
     */
    private static String raw(String property, Object value) {
        boolean secret = property.startsWith("sluice.dashboard.tokens")
                && !property.endsWith(".name")
                && !property.endsWith(".scope");
        return secret ? "(not shown)" : String.valueOf(value);
    }

    private static FailureAnalysis analysis(
            String property, String value, String problem, String action, Throwable failure) {
        String description = "Invalid Sluice configuration: property '" + property + "' "
                + (value == null ? "is missing" : "has the value '" + value + "'") + ": " + problem + ".";
        return new FailureAnalysis(description, action, failure);
    }

    private static FailureAnalysis unreachable(RedisUnreachableException e, Throwable failure) {
        String description = "Sluice cannot use Redis at " + e.redis() + ": " + e.reason()
                + ". These declarations cannot work without Redis: " + String.join(", ", e.needingRedis()) + ".";
        String action = "Start Redis at " + e.redis() + ", or correct " + e.setting() + ". To start while Redis is"
                + " down, give each limiter 'when-unavailable: fail-open' or 'when-unavailable: fall-back:SHARE'.";
        return new FailureAnalysis(description, action, failure);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
