package dev.sluice.queue;

import java.util.List;

/**
 * How many jobs are in each state, read at one instant: they always add up to {@link #total()}.
 *
 * @param waiting ready to run
 * @param delayed waiting for a time
 * @param active running
 * @param completed completed and still kept
 * @param failed failed and still kept
 */
public record JobCounts(long waiting, long delayed, long active, long completed, long failed) {
    /**
     * The count for one state.
     *
     * @param state the state
     * @return how many jobs are in it
     * @throws IllegalArgumentException if {@code state} is null
     */
    public long of(JobState state) {
        if (state == null) {
            throw new IllegalArgumentException("state must be one of " + List.of(JobState.values()) + ", was null");
        }
        return switch (state) {
            case WAITING -> waiting;
            case DELAYED -> delayed;
            case ACTIVE -> active;
            case COMPLETED -> completed;
            case FAILED -> failed;
        };
    }

    /**
     * Every job the queue holds.
     *
     * @return the sum of the five counts
     */
    public long total() {
        return waiting + delayed + active + completed + failed;
    }
}
