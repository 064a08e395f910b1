package dev.sluice.queue;

import dev.sluice.limit.RatePolicy;
import dev.sluice.time.Arguments;
import java.time.Duration;

/**
 * How a queue behaves: its bound, its limits and its jobs' defaults. Immutable; build with {@link
 * #builder()}. The limits can be changed later on the queue itself.
 *
 * <p>Defaults: at most 1,000,000 waiting and delayed jobs, then reject; no queue-wide rate; no queue-wide
 * concurrency; no group limits; {@link JobOptions#defaults()} for jobs; payloads of at most 512 KiB encoded. Every
 * engine applies the same bounds, so that a program that passes its tests in memory behaves the same on Redis.
 *
 * @param maxQueued the most jobs waiting or delayed at once, 1 to {@link Integer#MAX_VALUE}
 * @param whenFull what an add does when the queue holds {@code maxQueued} jobs
 * @param rate how often jobs of the whole queue may start; {@code null} for no rate limit
 * @param concurrency how many of the queue's jobs may run at once, over all its workers
 * @param groupDefaults the limits of every group that has no limits of its own
 * @param jobDefaults the options of a job that leaves them unset (every value set)
 * @param maxPayloadBytes the largest payload an add takes, in bytes as the queue's codec encodes it, 1 to {@link
 *     #MAX_PAYLOAD_BYTES}; a bigger one is refused with an {@link IllegalArgumentException} and nothing is added.
 *     Each process checks its own adds: it is not a setting of the queue that processes share
 */
public record QueueOptions(
        int maxQueued,
        WhenFull whenFull,
        RatePolicy rate,
        int concurrency,
        GroupLimits groupDefaults,
        JobOptions jobDefaults,
        int maxPayloadBytes) {
    /** The default bound on waiting and delayed jobs. */
    public static final int DEFAULT_MAX_QUEUED = 1_000_000;

    /** The default bound on a payload, encoded: 512 KiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;

    /** The largest bound on a payload a queue may have: 512 MiB, the most a Redis string holds. */
    public static final int MAX_PAYLOAD_BYTES = 512 * 1024 * 1024;

    /**
     * Built on first use, not in this class's initializer: should GroupLimits' initializer run after this class's,
     * a build here would see {@code GroupLimits.none()} still null.
     */
    private static final class Defaults {
        static final QueueOptions INSTANCE = builder().build();
    }

    /**
     * Validates every value, and fills the job defaults' unset values from {@link JobOptions#defaults()}.
     *
     * @throws IllegalArgumentException naming the first bad value and the allowed ones: a bound or concurrency
     *     below 1, a null {@code whenFull}, {@code groupDefaults} or {@code jobDefaults}, job defaults that set a job id, or a payload bound outside 1 to {@link #MAX_PAYLOAD_BYTES}
     */
    public QueueOptions {
        Arguments.inRange("maxQueued", maxQueued, 1, Integer.MAX_VALUE);
        if (whenFull == null) {
            throw new IllegalArgumentException(
                    "whenFull must be WhenFull.reject() or WhenFull.block(timeout), was null");
        }
        Arguments.inRange("queue concurrency", concurrency, 1, Integer.MAX_VALUE);
        if (groupDefaults == null) {
            throw new IllegalArgumentException("groupDefaults must not be null; use GroupLimits.none()");
        }
        if (jobDefaults == null) {
            throw new IllegalArgumentException("jobDefaults must not be null; use JobOptions.defaults()");
        }
        if (jobDefaults.jobId() != null) {
            throw new IllegalArgumentException("jobDefaults must not set a job id: ids must differ between jobs");
        }
        jobDefaults = jobDefaults.orElse(JobOptions.defaults());
        Arguments.inRange("maxPayloadBytes", maxPayloadBytes, 1, MAX_PAYLOAD_BYTES);
    }

    /**
     * The defaults listed above.
     *
     * @return the defaults, always the same instance
     */
    public static QueueOptions defaults() {
        return Defaults.INSTANCE;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these options, to make a variant.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxQueued = maxQueued;
        b.whenFull = whenFull;
        b.rate = rate;
        b.concurrency = concurrency;
        b.groupDefaults = groupDefaults;
        b.jobDefaults = jobDefaults;
        b.maxPayloadBytes = maxPayloadBytes;
        return b;
    }

    /**
     * The options for people: the bound and what a full queue does, then the limits that are set.
     *
     * @return for example {@code QueueOptions{maxQueued=1000000, whenFull=reject, concurrency=10,
     *     groupDefaults=GroupLimits.none(), jobDefaults=JobOptions{...}}}
     */
    @Override
    public String toString() {
        return new ToString("QueueOptions")
                .add("maxQueued", maxQueued)
                .add("whenFull", whenFull)
                .add("rate", rate)
                .addBound("concurrency", concurrency)
                .add("groupDefaults", groupDefaults)
                .add("jobDefaults", jobDefaults)
                .add("maxPayloadBytes", maxPayloadBytes == DEFAULT_MAX_PAYLOAD_BYTES ? null : maxPayloadBytes)
                .toString();
    }

    /**
     * What an add does when the queue is full.
     *
     * @param blockFor how long the producer waits for room; zero rejects at once
     */
    public record WhenFull(Duration blockFor) {
        /**
         * Validates the wait.
         *
         * @param blockFor 0 to about 73 years
         * @throws IllegalArgumentException if it is null, negative or longer
         */
        public WhenFull {
            Durations.notNegative("whenFull blockFor", blockFor);
        }

        /**
         * Throw {@link QueueFullException} at once.
         *
         * @return a wait of zero
         */
        public static WhenFull reject() {
            return new WhenFull(Duration.ZERO);
        }

        /**
         * Wait up to {@code timeout} for room, then throw {@link QueueFullException}. A producer interrupted while
         * it waits throws {@link QueueFullException} at once, with its interrupt status set; nothing is added.
         *
         * @param timeout the longest wait, 0 (reject at once) to about 73 years
         * @return the choice
         * @throws IllegalArgumentException if {@code timeout} is null, negative or longer
         */
        public static WhenFull block(Duration timeout) {
            return new WhenFull(timeout);
        }

        /**
         * The choice for people.
         *
         * @return {@code reject}, or for example {@code block(30 s)}
         */
        @Override
        public String toString() {
            return blockFor.isZero() ? "reject" : "block(" + Durations.text(blockFor) + ")";
        }
    }

    /** Builds {@link QueueOptions}. */
    public static final class Builder {
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private WhenFull whenFull = WhenFull.reject();
        private RatePolicy rate;
        private int concurrency = Integer.MAX_VALUE;
        private GroupLimits groupDefaults = GroupLimits.none();
        private JobOptions jobDefaults = JobOptions.defaults();
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;

        private Builder() {}

        /**
         * The most jobs waiting or delayed at once; checked by {@link #build()}.
         *
         * @param maxQueued 1 to {@link Integer#MAX_VALUE}
         * @return this builder
         */
        public Builder maxQueued(int maxQueued) {
            this.maxQueued = maxQueued;
            return this;
        }

        /**
         * What an add does when the queue is full; checked by {@link #build()}.
         *
         * @param whenFull {@link WhenFull#reject()} or {@link WhenFull#block(Duration)}
         * @return this builder
         */
        public Builder whenFull(WhenFull whenFull) {
            this.whenFull = whenFull;
            return this;
        }

        /**
         * How often jobs of the whole queue may start; checked by {@link #build()}.
         *
         * @param rate a rate policy; {@code null} for no limit
         * @return this builder
         */
        public Builder rate(RatePolicy rate) {
            this.rate = rate;
            return this;
        }

        /**
         * How many of the queue's jobs may run at once, over all workers; checked by {@link #build()}.
         *
         * @param concurrency 1 to {@link Integer#MAX_VALUE}
         * @return this builder
         */
        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /**
         * The limits of each group without limits of its own; checked by {@link #build()}.
         *
         * @param groupDefaults the limits; {@link GroupLimits#none()} for none
         * @return this builder
         */
        public Builder groupDefaults(GroupLimits groupDefaults) {
            this.groupDefaults = groupDefaults;
            return this;
        }

        /**
         * Options for jobs that leave them unset; its own unset values come from {@link JobOptions#defaults()}.
         * Checked by {@link #build()}.
         *
         * @param jobDefaults the options, without a job id
         * @return this builder
         */
        public Builder jobDefaults(JobOptions jobDefaults) {
            this.jobDefaults = jobDefaults;
            return this;
        }

        /**
         * The largest payload an add takes, in bytes as the queue's codec encodes it; checked by {@link #build()}.
         *
         * @param maxPayloadBytes 1 to {@link #MAX_PAYLOAD_BYTES}; {@link #DEFAULT_MAX_PAYLOAD_BYTES} unless set
         * @return this builder
         */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        /**
         * The options.
         *
         * @return the options
         * @throws IllegalArgumentException naming the first bad value and the allowed ones
         */
        public QueueOptions build() {
            return new QueueOptions(
                    maxQueued, whenFull, rate, concurrency, groupDefaults, jobDefaults, maxPayloadBytes);
        }
    }
}
