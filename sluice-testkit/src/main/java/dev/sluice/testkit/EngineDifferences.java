package dev.sluice.testkit;

import java.time.Duration;

/**
 * Where an engine's queue may differ from the in-memory one, as the specification allows: each difference is
 * stated here, and the contract suites hold every engine to the rest exactly.
 *
 * @param timeResolution the smallest step of the engine's time: instants it reports are within this of the
 *     exact ones (zero: exact to the nanosecond). The Redis engine counts microseconds.
 * @param addsCompleteInTheCall whether an async add that needs no wait for room is complete when the call
 *     returns (an engine in this process), or completes when a server answers
 * @param idleSlotsWaitWithoutTimeout whether a worker's idle slots wait untimed for the queue to wake them (an
 *     engine in this process), or also wake at intervals to look for work of other processes
 */
public record EngineDifferences(
        Duration timeResolution, boolean addsCompleteInTheCall, boolean idleSlotsWaitWithoutTimeout) {
    /**
     * An engine in this process: no difference.
     *
     * @return exact time, adds complete in the call, idle slots wait untimed
     */
    public static EngineDifferences none() {
        return new EngineDifferences(Duration.ZERO, true, true);
    }

    /**
     * An engine whose queue lives in a server that several processes share.
     *
     * @param timeResolution the smallest step of the server's time
     * @return those differences
     */
    public static EngineDifferences sharedServer(Duration timeResolution) {
        return new EngineDifferences(timeResolution, false, false);
    }
}
