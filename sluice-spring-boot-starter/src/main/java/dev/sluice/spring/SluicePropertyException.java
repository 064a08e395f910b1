package dev.sluice.spring;

/**
 * A Sluice property whose value cannot be used: it names the property, the value, what is wrong and what is
 * allowed. {@link SluiceFailureAnalyzer} turns it into the startup failure's message.
 */
final class SluicePropertyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String property;
    private final String value;
    private final String problem;
    private final String allowed;

    /**
     * @param property the full property name, such as {@code sluice.limiters.api.policy}
     * @param value the value as configured; null when the property is missing
     * @param problem what is wrong with it
     * @param allowed what the property accepts
     */
    SluicePropertyException(String property, Object value, String problem, String allowed) {
        super(property + (value == null ? " is missing" : " = '" + value + "'") + ": " + problem + "; allowed: "
                + allowed);
        this.property = property;
        this.value = value == null ? null : String.valueOf(value);
        this.problem = problem;
        this.allowed = allowed;
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

    String allowed() {
        return allowed;
    }
}
