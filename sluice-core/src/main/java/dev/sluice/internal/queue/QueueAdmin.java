package dev.sluice.internal.queue;

import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobState;
import java.time.Duration;

/**
 * How an engine manages a queue: the calls of {@link dev.sluice.queue.JobQueue} of the same names, made once {@link
 * QueueFront} has checked them (the engine open, every argument valid), so that an engine only stores the change.
 */
public interface QueueAdmin {
    void pause();

    void resume();

    boolean isPaused();

    boolean remove(String id);

    void retry(String id, JobState from);

    int retryFailed();

    int clean(JobState state, Duration age);

    int drain(boolean delayedToo);

    void promote(String id);

    void pauseGroup(String group);

    boolean resumeGroup(String group);

    void setRate(RatePolicy rate);

    void setConcurrency(int concurrency);

    void setGroupDefaults(GroupLimits limits);

    void setGroupLimits(String group, GroupLimits limits);

    void clearGroupLimits(String group);

    GroupLimits groupLimits(String group);

    /** The queue-wide limits as they are now in the engine, set by any process. */
    /** A gauge the queue follows read {@code value} (finite): the queue's adaptive rate hears it (nothing if none). */
    void gauge(String name, double value, double threshold);

    /** A gauge the queue follows cannot be read: the queue's adaptive rate holds until it is heard again. */
    void gaugeStale(String name);

    Limits limits();

    /** The limits of a queue that change at run time: its rate (null: none), concurrency and group defaults. */
    record Limits(RatePolicy rate, int concurrency, GroupLimits groupDefaults) {}
}
