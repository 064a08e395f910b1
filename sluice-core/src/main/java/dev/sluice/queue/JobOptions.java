package dev.sluice.queue;

import dev.sluice.time.Arguments;
import java.time.Duration;
import java.util.Objects;

/**
 * How one job is run. Immutable; build with {@link #builder()}. An option left unset takes the queue's
 * default ({@link QueueOptions#jobDefaults()}) when the job is added; the options a {@link Job} reports are
 * the resolved ones.
 *
 * <p>Defaults when neither the job nor the queue sets them: no id (the queue assigns one), no group, no
 * delay, 1 attempt, {@link Backoff#none()}, priority 0, no timeout, keep the last 1,000 completed and the
 * last 10,000 failed jobs, no de-duplication after removal, at most 100 rate-limited returns.
 */
public final class JobOptions {
    /** The longest job id, job name and group name, in characters. */
    public static final int MAX_NAME_LENGTH = 512;
    /** The most attempts a job may be given. */
    public static final int MAX_ATTEMPTS = 1_000_000;

    private static final JobOptions EMPTY = new Builder().build();
    private static final JobOptions DEFAULTS = new Builder()
            .delay(Duration.ZERO)
            .attempts(1)
            .backoff(Backoff.none())
            .priority(0)
            .keepCompleted(Retention.keepLast(1_000))
            .keepFailed(Retention.keepLast(10_000))
            .maxRateLimits(100)
            .build();

    private final String jobId;
    private final String group;
    private final Duration delay;
    private final Integer attempts;
    private final Backoff backoff;
    private final Integer priority;
    private final Duration timeout;
    private final Retention keepCompleted;
    private final Retention keepFailed;
    private final Duration deduplicateFor;
    private final Integer maxRateLimits;

    private JobOptions(Builder b) {
        this.jobId = b.jobId;
        this.group = b.group;
        this.delay = b.delay;
        this.attempts = b.attempts;
        this.backoff = b.backoff;
        this.priority = b.priority;
        this.timeout = b.timeout;
        this.keepCompleted = b.keepCompleted;
        this.keepFailed = b.keepFailed;
        this.deduplicateFor = b.deduplicateFor;
        this.maxRateLimits = b.maxRateLimits;
    }

    /**
     * A builder with nothing set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Options with nothing set: every value comes from the queue's defaults.
     *
     * @return the empty options, always the same instance
     */
    public static JobOptions empty() {
        return EMPTY;
    }

    /**
     * The built-in defaults listed above, every value set.
     *
     * @return the defaults, always the same instance
     */
    public static JobOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder holding these options, to make a variant.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.jobId = jobId;
        b.group = group;
        b.delay = delay;
        b.attempts = attempts;
        b.backoff = backoff;
        b.priority = priority;
        b.timeout = timeout;
        b.keepCompleted = keepCompleted;
        b.keepFailed = keepFailed;
        b.deduplicateFor = deduplicateFor;
        b.maxRateLimits = maxRateLimits;
        return b;
    }

    /**
     * These options, with every unset value taken from {@code defaults}.
     *
     * @param defaults the values to fall back on, such as {@link #defaults()}
     * @return the merged options
     * @throws IllegalArgumentException if {@code defaults} is null
     */
    public JobOptions orElse(JobOptions defaults) {
        if (defaults == null) {
            throw new IllegalArgumentException("defaults must not be null; use JobOptions.defaults()");
        }
        Builder b = toBuilder();
        b.jobId = jobId != null ? jobId : defaults.jobId;
        b.group = group != null ? group : defaults.group;
        b.delay = delay != null ? delay : defaults.delay;
        b.attempts = attempts != null ? attempts : defaults.attempts;
        b.backoff = backoff != null ? backoff : defaults.backoff;
        b.priority = priority != null ? priority : defaults.priority;
        b.timeout = timeout != null ? timeout : defaults.timeout;
        b.keepCompleted = keepCompleted != null ? keepCompleted : defaults.keepCompleted;
        b.keepFailed = keepFailed != null ? keepFailed : defaults.keepFailed;
        b.deduplicateFor = deduplicateFor != null ? deduplicateFor : defaults.deduplicateFor;
        b.maxRateLimits = maxRateLimits != null ? maxRateLimits : defaults.maxRateLimits;
        return b.build();
    }

    /**
     * The producer's id for the job, which de-duplicates adds.
     *
     * @return the id; {@code null} lets the queue assign one
     */
    public String jobId() {
        return jobId;
    }

    /**
     * The group (tenant) the job belongs to.
     *
     * @return the group; {@code null} for the queue's ungrouped jobs
     */
    public String group() {
        return group;
    }

    /**
     * How long after it is added the job may first run. A job added at {@code t} with delay {@code d} is ready
     * at exactly {@code t + d} on the engine clock (delayed until the nanosecond before).
     *
     * @return the delay; {@code null} if unset
     */
    public Duration delay() {
        return delay;
    }

    /**
     * How many times the job may run before it fails for good.
     *
     * @return 1 to {@value #MAX_ATTEMPTS}; {@code null} if unset
     */
    public Integer attempts() {
        return attempts;
    }

    /**
     * The wait between attempts.
     *
     * @return the backoff; {@code null} if unset
     */
    public Backoff backoff() {
        return backoff;
    }

    /**
     * Within its group, a job with a larger priority runs first; equal priorities run in order added.
     *
     * @return the priority; {@code null} if unset
     */
    public Integer priority() {
        return priority;
    }

    /**
     * The longest one attempt may run before it counts as failed.
     *
     * @return the timeout; {@code null} for no limit
     */
    public Duration timeout() {
        return timeout;
    }

    /**
     * Which completed jobs are kept.
     *
     * @return the retention; {@code null} if unset
     */
    public Retention keepCompleted() {
        return keepCompleted;
    }

    /**
     * Which failed jobs are kept.
     *
     * @return the retention; {@code null} if unset
     */
    public Retention keepFailed() {
        return keepFailed;
    }

    /**
     * How long after the job finished its id still de-duplicates adds, even once the job itself is removed. For a
     * job finished at {@code f} with window {@code w}, an add at {@code f + w} or later is a new job; one up to the
     * nanosecond before is a duplicate.
     *
     * @return the window; {@code null} for no longer than the job is kept
     */
    public Duration deduplicateFor() {
        return deduplicateFor;
    }

    /**
     * How many times the job may go back to waiting because it was rate-limited before it fails.
     *
     * @return 0 to {@link Integer#MAX_VALUE}; {@code null} if unset
     */
    public Integer maxRateLimits() {
        return maxRateLimits;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobOptions other
                && Objects.equals(jobId, other.jobId)
                && Objects.equals(group, other.group)
                && Objects.equals(delay, other.delay)
                && Objects.equals(attempts, other.attempts)
                && Objects.equals(backoff, other.backoff)
                && Objects.equals(priority, other.priority)
                && Objects.equals(timeout, other.timeout)
                && Objects.equals(keepCompleted, other.keepCompleted)
                && Objects.equals(keepFailed, other.keepFailed)
                && Objects.equals(deduplicateFor, other.deduplicateFor)
                && Objects.equals(maxRateLimits, other.maxRateLimits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(jobId, group, delay, attempts, backoff, priority, timeout, keepCompleted, keepFailed);
    }

    /**
     * The options that are set, for people.
     *
     * @return for example {@code JobOptions{jobId=order-17, delay=30 s, attempts=5}}; {@code JobOptions{}} when
     *     nothing is set
     */
    @Override
    public String toString() {
        return new ToString("JobOptions")
                .add("jobId", jobId)
                .add("group", group)
                .add("delay", delay)
                .add("attempts", attempts)
                .add("backoff", backoff)
                .add("priority", priority)
                .add("timeout", timeout)
                .add("keepCompleted", keepCompleted)
                .add("keepFailed", keepFailed)
                .add("deduplicateFor", deduplicateFor)
                .add("maxRateLimits", maxRateLimits)
                .toString();
    }

    /** Builds {@link JobOptions}; every setter validates at once and names the bad value and the range. */
    public static final class Builder {
        private String jobId;
        private String group;
        private Duration delay;
        private Integer attempts;
        private Backoff backoff;
        private Integer priority;
        private Duration timeout;
        private Retention keepCompleted;
        private Retention keepFailed;
        private Duration deduplicateFor;
        private Integer maxRateLimits;

        private Builder() {}

        /**
         * The producer's id for the job: an add with an id the queue holds (or still remembers, {@link
         * #deduplicateFor}) is a duplicate and adds nothing. Ids beginning with {@code repeat:} belong to the runs of
         * repeatable jobs: a queue refuses to add a job that gives one. A job added without an id gets the next of the
         * queue's numbers ({@code "1"}, {@code "2"}, ...) that is neither held nor remembered, so a number a producer
         * gave as an id is skipped.
         *
         * @param jobId 1 to {@value #MAX_NAME_LENGTH} characters
         * @return this builder
         * @throws IllegalArgumentException if it is null, empty or longer
         */
        public Builder jobId(String jobId) {
            this.jobId = checkName("job id", jobId);
            return this;
        }

        /**
         * The group (tenant) the job belongs to. {@code null} means no group, as everywhere a queue takes a group
         * ({@link JobQueue#stats(String)}, {@link JobQueue#groupLimits(String)}): the job takes the group of the
         * queue's job defaults if they set one, and is ungrouped otherwise.
         *
         * @param group 1 to {@value #MAX_NAME_LENGTH} characters, or {@code null} for none
         * @return this builder
         * @throws IllegalArgumentException if it is empty or longer
         */
        public Builder group(String group) {
            this.group = group == null ? null : checkName("group", group);
            return this;
        }

        /**
         * How long after it is added the job may first run.
         *
         * @param delay 0 to about 73 years
         * @return this builder
         * @throws IllegalArgumentException if it is null, negative or longer
         */
        public Builder delay(Duration delay) {
            this.delay = Durations.notNegative("delay", delay);
            return this;
        }

        /**
         * How many times the job may run before it fails for good.
         *
         * @param attempts 1 to {@value #MAX_ATTEMPTS}
         * @return this builder
         * @throws IllegalArgumentException if it is outside that range
         */
        public Builder attempts(int attempts) {
            this.attempts = Arguments.inRange("attempts", attempts, 1, MAX_ATTEMPTS);
            return this;
        }

        /**
         * The wait between attempts.
         *
         * @param backoff the backoff; {@link Backoff#none()} to retry at once
         * @return this builder
         * @throws IllegalArgumentException if it is null
         */
        public Builder backoff(Backoff backoff) {
            if (backoff == null) {
                throw new IllegalArgumentException("backoff must not be null; use Backoff.none()");
            }
            this.backoff = backoff;
            return this;
        }

        /**
         * The job's priority within its group.
         *
         * @param priority any int; larger runs first
         * @return this builder
         */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /**
         * The longest one attempt may run before it counts as failed.
         *
         * @param timeout positive, at most about 73 years
         * @return this builder
         * @throws IllegalArgumentException if it is null, zero, negative or longer
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Durations.positive("timeout", timeout);
            return this;
        }

        /**
         * Which completed jobs are kept.
         *
         * @param retention the retention; {@link Retention#keepAll()} to keep every one
         * @return this builder
         * @throws IllegalArgumentException if it is null
         */
        public Builder keepCompleted(Retention retention) {
            this.keepCompleted = checkRetention("keepCompleted", retention);
            return this;
        }

        /**
         * Which failed jobs are kept.
         *
         * @param retention the retention; {@link Retention#keepAll()} to keep every one
         * @return this builder
         * @throws IllegalArgumentException if it is null
         */
        public Builder keepFailed(Retention retention) {
            this.keepFailed = checkRetention("keepFailed", retention);
            return this;
        }

        /**
         * How long after the job finished its id still de-duplicates adds, even once the job is removed. The
         * job then needs a {@link #jobId}: an add without one is refused.
         *
         * @param window positive, at most about 73 years
         * @return this builder
         * @throws IllegalArgumentException if it is null, zero, negative or longer
         */
        public Builder deduplicateFor(Duration window) {
            this.deduplicateFor = Durations.positive("deduplicateFor", window);
            return this;
        }

        /**
         * How many times the job may go back to waiting because it was rate-limited before it fails.
         *
         * @param maxRateLimits 0 to {@link Integer#MAX_VALUE}
         * @return this builder
         * @throws IllegalArgumentException if it is negative
         */
        public Builder maxRateLimits(int maxRateLimits) {
            this.maxRateLimits = Arguments.inRange("maxRateLimits", maxRateLimits, 0, Integer.MAX_VALUE);
            return this;
        }

        /**
         * The options; every value was checked when it was set.
         *
         * @return the options
         */
        public JobOptions build() {
            return new JobOptions(this);
        }

        private static Retention checkRetention(String what, Retention retention) {
            if (retention == null) {
                throw new IllegalArgumentException(what + " must not be null; use Retention.keepAll()");
            }
            return retention;
        }
    }

    static String checkName(String what, String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must be 1 to " + MAX_NAME_LENGTH + " characters, was "
                    + (name == null ? "null" : name.isEmpty() ? "empty" : name.length() + " characters"));
        }
        return name;
    }
}
