package dev.sluice.queue;

/**
 * The work a {@link Worker} does for each job. Called on a virtual thread; may block.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface Processor<T> {
    /**
     * Runs one attempt of a job.
     *
     * @return how it went; {@code null} fails the attempt with a reason saying so
     * @throws UnrecoverableJobException to fail the job at once, whatever attempts remain
     * @throws Exception to fail this attempt; it is retried while attempts remain
     */
    Result process(JobContext<T> job) throws Exception;
}
