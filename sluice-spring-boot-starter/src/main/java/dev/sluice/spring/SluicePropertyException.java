package dev.sluice.spring;

import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * A Sluice property whose value cannot be used: it names the property, the value, what is wrong and what to do
 * about it. {@link SluiceFailureAnalyzer} turns it into the startup failure's message.
 */
final class SluicePropertyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;
    private final String problem;
    private final String action;

    /**
     * A value outside what the property accepts.
     *
     * @param property the full property name, such as {@code sluice.limiters.api.policy}
     * @param value the value as configured; null when the property is missing
     * @param problem what is wrong with it
     * @param allowed what the property accepts, a noun phrase that completes "Set 'property' to ..."
     */
    SluicePropertyException(String property, Object value, String problem, String allowed) {
        this(property, value, problem, "Set '" + property + "' to " + allowed + ".", true);
    }

    private SluicePropertyException(String property, Object value, String problem, String action, boolean ignored) {
        super(property + (value == null ? " is missing" : " = '" + shown(value) + "'") + ": " + problem + ". "
                + action);
        this.property = property;
        this.value = value == null ? null : shown(value);
        this.problem = problem;
        this.action = action;
    }

    /**
     * A property that is wrong whatever its value, or whose fix is not a value: {@code action} is the whole
     * sentence that says what to do.
     */
    static SluicePropertyException withAction(String property, Object value, String problem, String action) {
        return new SluicePropertyException(property, value, problem, action, true);
    }

    /** A value as written in properties: a duration as {@code 1s}, not {@code PT1S}. */
    private static String shown(Object value) {
        return value instanceof Duration duration ? DurationText.format(duration) : String.valueOf(value);
    }

    String property() {
        return property;
    }

    String value() {
        return value;
    }

    String problem() {
        return problem;
    }

    /** What to do, a sentence. */
    String action() {
        return action;
    }
}
