package dev.sluice.queue;

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
    /** The count for {@code state}. */
    public long of(JobState state) {
        return switch (state) {
            case WAITING -> waiting;
            case DELAYED -> delayed;
            case ACTIVE -> active;
            case COMPLETED -> completed;
            case FAILED -> failed;
        };
    }

    /** Every job the queue holds. */
    public long total() {
        return waiting + delayed + active + completed + failed;
    }
}
