package dev.sluice.queue;

import java.time.Duration;

/**
 * Statistics of a queue, or of one group.
 *
 * @param counts jobs per state now
 * @param completed jobs completed since the queue was created (for a group: see {@link JobQueue#stats(String)})
 * @param failed jobs failed for good since then
 * @param completedPerSecond completions per second over the last minute
 * @param waitTime from ready (added, or delay over) to started, of the attempts started since the queue was created
 * @param processingTime from started to finished, of the attempts ended since then
 */
public record QueueStats(
        JobCounts counts,
        long completed,
        long failed,
        double completedPerSecond,
        Latency waitTime,
        Latency processingTime) {

    /**
     * Percentiles of a duration, from a histogram with 3% relative precision.
     *
     * @param count samples recorded
     * @param p50 median
     * @param p90 90th percentile
     * @param p99 99th percentile
     * @param max the largest sample
     */
    public record Latency(long count, Duration p50, Duration p90, Duration p99, Duration max) {
        /**
         * The percentiles for people.
         *
         * @return for example {@code Latency{count=120, p50=2.5 ms, p90=8 ms, p99=31.5 ms, max=40 ms}}
         */
        @Override
        public String toString() {
            return new ToString("Latency")
                    .add("count", count)
                    .add("p50", p50)
                    .add("p90", p90)
                    .add("p99", p99)
                    .add("max", max)
                    .toString();
        }
    }
}
