package dev.sluice.queue;

import dev.sluice.SluiceException;

/** An operation named a job its queue does not hold. */
public class JobNotFoundException extends SluiceException {
    private static final long serialVersionUID = 1L;
    /** The id that was not found. */
    private final String jobId;

    /**
     * No job {@code jobId} in queue {@code queue}.
     *
     * @param queue the queue's name
     * @param jobId the id that was not found
     */
    public JobNotFoundException(String queue, String jobId) {
        this(queue, jobId, null);
    }

    /**
     * No job {@code jobId} in queue {@code queue}, for a reason.
     *
     * @param queue the queue's name
     * @param jobId the id that was not found
     * @param why what became of the job (for instance "it was removed before it finished"); {@code null} for
     *     nothing more
     */
    public JobNotFoundException(String queue, String jobId, String why) {
        super("queue '" + queue + "' holds no job '" + jobId + "'" + (why == null ? "" : ": " + why));
        this.jobId = jobId;
    }

    /**
     * The id that was not found.
     *
     * @return the job id
     */
    public String jobId() {
        return jobId;
    }
}
