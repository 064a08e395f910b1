package dev.sluice.redis.internal;

/**
 * What a listener's {@code onRetrying} gets for an attempt that failed in another process: the class name and
 * message of the exception its processor threw there, without a stack trace (the job's failure keeps the trace
 * once it fails for good).
 */
final class RemoteFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String className;

    RemoteFailure(String className, String message) {
        super(message, null, false, false);
        this.className = className;
    }

    /** As the original's {@code toString()} would read: its class name, and its message if it had one. */
    @Override
    public String toString() {
        String message = getMessage();
        return message == null ? className : className + ": " + message;
    }
}
