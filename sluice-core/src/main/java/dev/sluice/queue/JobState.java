package dev.sluice.queue;

/** Where a job is in its life. Every change of state is atomic: a job is in exactly one state at a time. */
public enum JobState {
    /** Ready to run as soon as a worker, the limits and the job's group allow. */
    WAITING,
    /** Waiting for a time: a delay, or a retry's backoff. */
    DELAYED,
    /** Being processed by a worker. */
    ACTIVE,
    /** Processed successfully. Kept according to {@link JobOptions#keepCompleted()}. */
    COMPLETED,
    /** Failed for good: attempts used up, unrecoverable, or rate-limited too often. */
    FAILED
}
