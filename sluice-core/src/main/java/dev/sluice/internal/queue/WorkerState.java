package dev.sluice.internal.queue;

/** Where a worker is in its life, in every engine. */
public enum WorkerState {
    /** Made, not started. */
    NEW,
    /** Inside {@code runDue()}. */
    MANUAL,
    /** Started: its slots take jobs. */
    RUNNING,
    /** Closing: it takes no job and waits for its running ones until the deadline. */
    CLOSING,
    /** Closed. */
    CLOSED
}
