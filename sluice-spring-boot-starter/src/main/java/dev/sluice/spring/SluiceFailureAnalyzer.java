package dev.sluice.spring;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Turns a malformed {@code sluice.*} property into one startup message: which property, what was wrong, what is
 * allowed. It reads a {@link SluicePropertyException} (a value Sluice refused) and a {@link BindException} under
 * {@code sluice.} (a value of the wrong type, such as a duration that is not one); it runs before Spring Boot's
 * own analyzers, and leaves every other failure to them.
 */
final class SluiceFailureAnalyzer implements FailureAnalyzer, Ordered {
    private static final Map<Class<?>, String> TYPES = Map.of(
            Duration.class, Declarations.DURATION,
            Long.class, "a whole number",
            Integer.class, "a whole number",
            long.class, "a whole number",
            int.class, "a whole number",
            Double.class, "a number",
            boolean.class, "true or false",
            Boolean.class, "true or false");

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SluicePropertyException e) {
                return analysis(e.property(), e.value(), e.problem(), e.allowed(), failure);
            }
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof BindException e && e.getName().toString().startsWith("sluice.")) {
                ConfigurationProperty property = e.getProperty();
                Object value = property == null ? null : property.getValue();
                Class<?> type = e.getTarget().getType().resolve(Object.class);
                String problem = "cannot be read as " + TYPES.getOrDefault(type, type.getSimpleName());
                return analysis(
                        e.getName().toString(),
                        value == null ? null : value.toString(),
                        problem,
                        TYPES.getOrDefault(type, "a value of type " + type.getName()),
                        failure);
            }
        }
        return null;
    }

    private static FailureAnalysis analysis(
            String property, String value, String problem, String allowed, Throwable failure) {
        String description = "Invalid Sluice configuration: property '" + property + "' "
                + (value == null ? "is missing" : "has the value '" + value + "'") + ": " + problem + ".";
        String action = "Set '" + property + "' to " + allowed + ".";
        return new FailureAnalysis(description, action, failure);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
