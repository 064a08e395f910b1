package dev.sluice.queue;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Statistics of a queue, or of one group.
 *
 * <p>The totals count each job once, whatever retention or {@link JobQueue#remove} took out of the queue since:
 * {@code added} counts every job that entered the queue (an {@link JobQueue#add add} or a run of a {@link
 * JobQueue#repeat repeatable job}, but not a duplicate of a job id, which adds nothing), {@code completed} and
 * {@code failed} every job that ended so. A job that {@link JobQueue#retry retry} sent back counts again when it ends again.
 *
 * @param counts jobs per state now
 * @param added jobs added since the queue was created (for a group: see {@link JobQueue#stats(String)})
 * @param completed jobs completed since then
 * @param failed jobs failed for good since then
 * @param completedPerSecond completions per second over the last minute
 * @param waitTime from ready (added, or delay over) to started, of the attempts started since the queue was created
 * @param processingTime from started to finished, of the attempts ended since then
 * @param rate the rate of the queue (of the group, for a group's statistics) as configured and as it runs now; {@code
 *     null} if it has none
 */
public record QueueStats(
        JobCounts counts,
        long added,
        long completed,
        long failed,
        double completedPerSecond,
        Latency waitTime,
        Latency processingTime,
        Rate rate) {

    /**
     * Statistics without a rate.
     *
     * @param counts jobs per state now
     * @param added jobs added
     * @param completed jobs completed
     * @param failed jobs failed for good
     * @param completedPerSecond completions per second over the last minute
     * @param waitTime wait times
     * @param processingTime processing times
     */
    public QueueStats(
            JobCounts counts,
            long added,
            long completed,
            long failed,
            double completedPerSecond,
            Latency waitTime,
            Latency processingTime) {
        this(counts, added, completed, failed, completedPerSecond, waitTime, processingTime, null);
    }

    /**
     * A rate as configured and as it runs: for an {@link dev.sluice.limit.AdaptiveRate}, where its signals moved it.
     *
     * @param configured the rate policy set on the queue or group
     * @param configuredPerSecond the configured rate (an adaptive rate's ceiling), in jobs per second
     * @param perSecond the rate in force, in jobs per second: the configured one unless adaptive
     * @param cuts how many times an adaptive rate was cut (by refusals, overloads or processing times) since it started
     * @param lastChange the last change of an adaptive rate told to listeners; {@code null} if none yet
     * @param changes how many changes of an adaptive rate were told to listeners since it started, by reason (a reason
     *     never told is absent); empty if the rate is not adaptive
     */
    public record Rate(
            dev.sluice.limit.RatePolicy configured,
            double configuredPerSecond,
            double perSecond,
            long cuts,
            RateChange lastChange,
            Map<RateChange.Reason, Long> changes) {
        /** Copies {@code changes} (null: none), in the order of the reasons. */
        public Rate {
            EnumMap<RateChange.Reason, Long> copy = new EnumMap<>(RateChange.Reason.class);
            if (changes != null) {
                copy.putAll(changes);
            }
            changes = Collections.unmodifiableMap(copy);
        }

        /**
         * A rate whose changes are not counted.
         *
         * @param configured the rate policy set on the queue or group
         * @param configuredPerSecond the configured rate, in jobs per second
         * @param perSecond the rate in force, in jobs per second
         * @param cuts how many times an adaptive rate was cut
         * @param lastChange the last change told; {@code null} if none
         */
        public Rate(
                dev.sluice.limit.RatePolicy configured,
                double configuredPerSecond,
                double perSecond,
                long cuts,
                RateChange lastChange) {
            this(configured, configuredPerSecond, perSecond, cuts, lastChange, Map.of());
        }

        /**
         * How many changes of {@code reason} were told.
         *
         * @param reason the reason
         * @return the count, 0 if none
         */
        public long changes(RateChange.Reason reason) {
            return changes.getOrDefault(reason, 0L);
        }

        /**
         * The rate for people.
         *
         * @return for example {@code Rate{170.0 of 200.0 /s, AdaptiveRate.of(...), cuts=1, changes={CUT=1}}}
         */
        @Override
        public String toString() {
            return "Rate{" + perSecond + " of " + configuredPerSecond + " /s, " + configured + ", cuts=" + cuts
                    + (changes.isEmpty() ? "" : ", changes=" + changes)
                    + (lastChange == null ? "" : ", last " + lastChange) + "}";
        }
    }

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
