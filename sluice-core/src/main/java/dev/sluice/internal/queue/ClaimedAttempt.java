package dev.sluice.internal.queue;

import dev.sluice.queue.JobOptions;

/**
 * A job a worker's slot claimed, as the worker runs it: each engine's claimed job implements it, with what its store
 * needs to record the attempt's end.
 */
public interface ClaimedAttempt {
    /** The id of the job. */
    String jobId();

    /** The token that owns the job while this attempt runs; a later claim of the job holds another. */
    long token();

    /** The attempt's number, 1 for the first. */
    int attempt();

    /** The job's options. */
    JobOptions options();
}
