package dev.sluice.queue;

import dev.sluice.SluiceException;

/** An operation named a job its queue does not hold. */
public class JobNotFoundException extends SluiceException {
    private static final long serialVersionUID = 1L;
    private final String jobId;

    /** No job {@code jobId} in queue {@code queue}. */
    public JobNotFoundException(String queue, String jobId) {
        super("queue '" + queue + "' holds no job '" + jobId + "'");
        this.jobId = jobId;
    }

    /** The id that was not found. */
    public String jobId() {
        return jobId;
    }
}
