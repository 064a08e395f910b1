package dev.sluice.micrometer;

import dev.sluice.time.Arguments;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * How {@link SluiceMetrics} meters an engine: the percentiles and histogram of its timers, which groups of each
 * queue get meters of their own, and tags added to every meter. Immutable; made by {@link #builder()}, {@link
 * #defaults()} or {@link #toBuilder()}.
 *
 * <h2>Groups: bounded tag cardinality</h2>
 *
 * Group names are often tenants, so a meter per group could mean a series per tenant. Groups get meters ({@link
 * MeterNames#GROUP_JOBS} and the other {@code sluice.queue.group.*} meters) only if they are named in {@link
 * #groups()}, or are among the {@link #busiestGroups()} busiest of their queue: at most that many per queue at a
 * time, besides the named ones. Busiest means the most queue events heard (added, started, ended) in the last
 * {@link #rankEvery()} on the engine's clock. Until a queue's first ranking, the first groups heard take the free
 * places; at each ranking (made by the first event after {@code rankEvery} has passed) the places go to the
 * busiest groups of the period just ended, and a group that lost its place loses its meters, so its counters
 * start again from zero if it comes back. Within a period at most 10,000 groups of a queue are counted.
 */
public final class MetricsOptions {
    /** The most busiest groups per queue that {@link Builder#busiestGroups} accepts. */
    public static final int MAX_BUSIEST_GROUPS = 1_000;

    /** The longest period {@link Builder#rankEvery} takes: a day. */
    public static final Duration MAX_RANK_EVERY = Duration.ofDays(1);

    /** The tag keys of Sluice's own meters, which {@link Builder#tags} refuses. */
    private static final Set<String> OWN_TAG_KEYS = Set.of(
            MeterNames.LIMITER,
            MeterNames.OUTCOME,
            MeterNames.BASIS,
            MeterNames.QUEUE,
            MeterNames.GROUP,
            MeterNames.STATE,
            MeterNames.SCOPE);

    private static final MetricsOptions DEFAULTS = new Builder().build();

    private final double[] percentiles;
    private final boolean percentileHistogram;
    private final Set<String> groups;
    private final int busiestGroups;
    private final Duration rankEvery;
    private final Tags tags;

    private MetricsOptions(Builder builder) {
        this.percentiles = builder.percentiles.clone();
        this.percentileHistogram = builder.percentileHistogram;
        this.groups = Set.copyOf(builder.groups);
        this.busiestGroups = builder.busiestGroups;
        this.rankEvery = builder.rankEvery;
        this.tags = builder.tags;
    }

    /**
     * Percentiles 0.5, 0.9 and 0.99 of each timer, no histogram, no group meters, no extra tags.
     *
     * @return the default options
     */
    public static MetricsOptions defaults() {
        return DEFAULTS;
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
     * A builder starting from these options.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * The percentiles each timer publishes, computed in this process (they cannot be added up across processes:
     * use {@link #percentileHistogram()} for that).
     *
     * @return a copy of the percentiles, each from 0 to 1; empty for none
     */
    public double[] percentiles() {
        return percentiles.clone();
    }

    /**
     * Whether each timer publishes a histogram that the monitoring system can compute percentiles from across
     * processes (Prometheus's {@code histogram_quantile}).
     *
     * @return whether it does
     */
    public boolean percentileHistogram() {
        return percentileHistogram;
    }

    /**
     * The groups that get meters of their own in every queue that has them, whatever their activity.
     *
     * @return the names, unmodifiable
     */
    public Set<String> groups() {
        return groups;
    }

    /**
     * How many of each queue's busiest groups get meters of their own, besides {@link #groups()}.
     *
     * @return 0 to {@link #MAX_BUSIEST_GROUPS}
     */
    public int busiestGroups() {
        return busiestGroups;
    }

    /**
     * How often the busiest groups are ranked again.
     *
     * @return the period, positive
     */
    public Duration rankEvery() {
        return rankEvery;
    }

    /**
     * Tags added to every meter, for example the application or the engine.
     *
     * @return the tags
     */
    public Tags tags() {
        return tags;
    }

    @Override
    public String toString() {
        return "MetricsOptions[percentiles=" + Arrays.toString(percentiles) + ", percentileHistogram="
                + percentileHistogram + ", groups=" + groups + ", busiestGroups=" + busiestGroups + ", rankEvery="
                + rankEvery + ", tags=" + tags + "]";
    }

    /** Builds {@link MetricsOptions}; each setter checks its argument and names the bad value and what is allowed. */
    public static final class Builder {
        private double[] percentiles = {0.5, 0.9, 0.99};
        private boolean percentileHistogram;
        private final Set<String> groups = new LinkedHashSet<>();
        private int busiestGroups;
        private Duration rankEvery = Duration.ofMinutes(1);
        private Tags tags = Tags.empty();

        private Builder() {}

        private Builder(MetricsOptions options) {
            this.percentiles = options.percentiles.clone();
            this.percentileHistogram = options.percentileHistogram;
            this.groups.addAll(options.groups);
            this.busiestGroups = options.busiestGroups;
            this.rankEvery = options.rankEvery;
            this.tags = options.tags;
        }

        /**
         * The percentiles each timer publishes; none to publish none.
         *
         * @param percentiles each from 0 to 1, such as 0.5 and 0.99
         * @return this builder
         * @throws IllegalArgumentException if the array is null or a percentile is out of range
         */
        public Builder percentiles(double... percentiles) {
            if (percentiles == null) {
                throw new IllegalArgumentException("percentiles must not be null; give none for no percentiles");
            }
            for (double percentile : percentiles) {
                if (!(percentile >= 0 && percentile <= 1)) {
                    throw new IllegalArgumentException("each percentile must be from 0 to 1, was " + percentile);
                }
            }
            this.percentiles = percentiles.clone();
            return this;
        }

        /**
         * Whether each timer publishes a histogram for percentiles across processes; false by default.
         *
         * @param percentileHistogram whether it does
         * @return this builder
         */
        public Builder percentileHistogram(boolean percentileHistogram) {
            this.percentileHistogram = percentileHistogram;
            return this;
        }

        /**
         * Groups that get meters of their own, in addition to those given before.
         *
         * @param groups group names, as given in {@code JobOptions.group}
         * @return this builder
         * @throws IllegalArgumentException if the collection is null or holds a null or empty name
         */
        public Builder groups(Collection<String> groups) {
            if (groups == null) {
                throw new IllegalArgumentException("groups must not be null; give an empty collection for none");
            }
            for (String group : groups) {
                if (group == null || group.isEmpty()) {
                    throw new IllegalArgumentException("a group name must be 1 or more characters, was "
                            + (group == null ? "null" : "empty") + " in " + groups);
                }
            }
            this.groups.addAll(groups);
            return this;
        }

        /**
         * As {@link #groups(Collection)}.
         *
         * @param groups group names
         * @return this builder
         * @throws IllegalArgumentException as {@link #groups(Collection)}
         */
        public Builder groups(String... groups) {
            if (groups == null) {
                throw new IllegalArgumentException("groups must not be null; give none for none");
            }
            return groups(Arrays.asList(groups));
        }

        /**
         * How many of each queue's busiest groups get meters of their own; 0 (the default) for none.
         *
         * @param busiestGroups 0 to {@link #MAX_BUSIEST_GROUPS}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder busiestGroups(int busiestGroups) {
            if (busiestGroups < 0 || busiestGroups > MAX_BUSIEST_GROUPS) {
                throw new IllegalArgumentException(
                        "busiestGroups must be 0 to " + MAX_BUSIEST_GROUPS + ", was " + busiestGroups);
            }
            this.busiestGroups = busiestGroups;
            return this;
        }

        /**
         * How often the busiest groups are ranked again; one minute by default.
         *
         * @param rankEvery the period, positive and at most {@link #MAX_RANK_EVERY}
         * @return this builder
         * @throws IllegalArgumentException if null, zero, negative or longer
         */
        public Builder rankEvery(Duration rankEvery) {
            this.rankEvery = Arguments.positive("rankEvery", rankEvery, MAX_RANK_EVERY, "1 d");
            return this;
        }

        /**
         * A tag added to every meter, besides those given before (a later value for a key replaces the earlier).
         *
         * @param key the tag's key
         * @param value its value
         * @return this builder
         * @throws IllegalArgumentException if the key or the value is null, or the key is one of Sluice's own
         */
        public Builder tag(String key, String value) {
            if (key == null || value == null) {
                throw new IllegalArgumentException(
                        "a tag needs a key and a value, was key " + key + " and value " + value);
            }
            return tags(Tags.of(key, value));
        }

        /**
         * Tags added to every meter, besides those given before.
         *
         * @param tags the tags
         * @return this builder
         * @throws IllegalArgumentException if {@code tags} is null, or a key is one of Sluice's own ({@link
         *     MeterNames#LIMITER}, {@link MeterNames#QUEUE}, ...)
         */
        public Builder tags(Iterable<Tag> tags) {
            if (tags == null) {
                throw new IllegalArgumentException("tags must not be null; give Tags.empty() for none");
            }
            for (Tag tag : tags) {
                if (OWN_TAG_KEYS.contains(tag.getKey())) {
                    throw new IllegalArgumentException("tag key '" + tag.getKey() + "' is one of Sluice's own "
                            + OWN_TAG_KEYS + "; choose another key");
                }
            }
            this.tags = this.tags.and(tags);
            return this;
        }

        /**
         * The options.
         *
         * @return new options
         */
        public MetricsOptions build() {
            return new MetricsOptions(this);
        }
    }
}
