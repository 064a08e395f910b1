package dev.sluice.queue;

import dev.sluice.SluiceException;

/** Thrown by a {@link Processor} to fail its job at once: retrying cannot help (bad input, say). */
public class UnrecoverableJobException extends SluiceException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a reason.
     *
     * @param message why retrying cannot help; it becomes the job's {@link Job.Failure#reason()}
     */
    public UnrecoverableJobException(String message) {
        super(message);
    }

    /**
     * A failure with a reason and its cause.
     *
     * @param message why retrying cannot help
     * @param cause what went wrong; {@code null} if unknown
     */
    public UnrecoverableJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
