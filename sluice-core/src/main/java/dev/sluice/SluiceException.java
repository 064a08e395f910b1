package dev.sluice;

/**
 * The root of the exceptions Sluice throws for failures it cannot express as a return value.
 *
 * <p>Expected outcomes, such as a denied permit, are return values ({@link dev.sluice.limit.Decision}),
 * never exceptions. Bad arguments are {@link IllegalArgumentException}s.
 */
public class SluiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception with a message that says what went wrong.
     *
     * @param message what went wrong
     */
    public SluiceException(String message) {
        super(message);
    }

    /**
     * Creates an exception with a message and the failure that caused it.
     *
     * @param message what went wrong
     * @param cause the failure that caused it; {@code null} if unknown
     */
    public SluiceException(String message, Throwable cause) {
        super(message, cause);
    }
}
