package dev.sluice.queue;

/**
 * The work a {@link Worker} does for each job. Called on a virtual thread; may block.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface Processor<T> {
    /**
     * Runs one attempt of a job. It may run more than once for one job (delivery is at least once, see {@link
     * Worker}): key side effects on {@link Job#id()}.
     *
     * @param job the job and this attempt, to read the payload and report progress
     * @return how it went: {@link Result#done()} (with a result value or not), {@link Result#runAgainAfter} or
     *     {@link Result#rateLimited}. {@code null} is a mistake another attempt would repeat: the job fails at once,
     *     whatever attempts remain, with a reason saying what to return
     * @throws UnrecoverableJobException to fail the job at once, whatever attempts remain
     * @throws Exception to fail this attempt; it is retried while attempts remain
     */
    Result process(JobContext<T> job) throws Exception;
}
