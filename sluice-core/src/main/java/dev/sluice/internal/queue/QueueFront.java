package dev.sluice.internal.queue;

import dev.sluice.internal.limit.Limits;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.Added;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;

/**
 * The calls of a queue's front that are the same on every engine, written once: adding and managing. Each checks that
 * the engine is open and what it was given, the same way on every engine, then hands the call to the engine's {@link
 * QueueAdds} or {@link QueueAdmin}.
 *
 * @param <T> the queue's payloads
 */
public abstract class QueueFront<T> implements JobQueue<T> {
    /** For the engines' queues. */
    protected QueueFront() {}

    /** The engine's store of the managing calls. */
    protected abstract QueueAdmin admin();

    /** The engine's adding of jobs. */
    protected abstract QueueAdds<T> adds();

    /**
     * Fails if the engine is closed.
     *
     * @throws IllegalStateException naming the closed engine
     */
    protected abstract void checkOpen();

    /** Whether the queue's engine has closed. */
    protected abstract boolean isClosed();

    /** The engine's clock. */
    protected abstract SluiceClock clock();

    /** The options this process opened the queue with: its job defaults, bounds and what a full queue does. */
    protected abstract QueueOptions opened();

    /** The gauges this process follows for the queue, by name. */
    private final ConcurrentHashMap<String, GaugeFollower> gauges = new ConcurrentHashMap<>();

    /** What {@link #options()} last read, to answer once the engine has closed. */
    private volatile QueueOptions lastRead;

    @Override
    public final QueueOptions options() {
        if (isClosed()) {
            return lastReadOrOpened();
        }
        QueueAdmin.Limits now = admin().limits();
        QueueOptions current = opened().toBuilder()
                .rate(now.rate())
                .concurrency(now.concurrency())
                .groupDefaults(now.groupDefaults())
                .build();
        lastRead = current;
        return current;
    }

    private QueueOptions lastReadOrOpened() {
        QueueOptions last = lastRead;
        return last != null ? last : opened();
    }

    @Override
    public final Added<T> add(String jobName, T payload, JobOptions jobOptions) {
        checkOpen();
        return adds().add(new NewJob<>(jobName, payload, jobOptions));
    }

    @Override
    public final CompletableFuture<Added<T>> addAsync(String jobName, T payload, JobOptions jobOptions) {
        checkOpen();
        return adds().addAsync(new NewJob<>(jobName, payload, jobOptions));
    }

    @Override
    public final List<Added<T>> addBulk(List<NewJob<T>> jobs) {
        checkOpen();
        return adds().addBulk(jobs);
    }

    @Override
    public final CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> jobs) {
        checkOpen();
        return adds().addBulkAsync(jobs);
    }

    @Override
    public final void pause() {
        checkOpen();
        admin().pause();
    }

    @Override
    public final void resume() {
        checkOpen();
        admin().resume();
    }

    @Override
    public final boolean isPaused() {
        checkOpen();
        return admin().isPaused();
    }

    @Override
    public final boolean remove(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        return admin().remove(id);
    }

    @Override
    public final void retry(String id, JobState from) {
        checkOpen();
        QueueChecks.checkJobId(id);
        QueueChecks.checkRetryFrom(from);
        admin().retry(id, from);
    }

    @Override
    public final int retryFailed() {
        checkOpen();
        return admin().retryFailed();
    }

    @Override
    public final int clean(JobState state, Duration age) {
        checkOpen();
        QueueChecks.checkClean(state, age);
        return admin().clean(state, age);
    }

    @Override
    public final void pauseGroup(String group) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(group);
        admin().pauseGroup(group);
    }

    @Override
    public final boolean resumeGroup(String group) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(group);
        return admin().resumeGroup(group);
    }

    @Override
    public final void promote(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        admin().promote(id);
    }

    @Override
    public final int drain(boolean delayedToo) {
        checkOpen();
        return admin().drain(delayedToo);
    }

    @Override
    public final void setRate(RatePolicy rate) {
        checkOpen();
        admin().setRate(rate);
    }

    @Override
    public final void followGauge(String name, double threshold, DoubleSupplier reading) {
        Limits.checkName("gauge", name);
        if (!(threshold > 0) || !Double.isFinite(threshold)) {
            throw new IllegalArgumentException("gauge threshold must be finite and above 0, was " + threshold);
        }
        if (reading == null) {
            throw new IllegalArgumentException("gauge reading must not be null");
        }
        checkOpen();
        GaugeFollower follower = new GaugeFollower(name(), name, threshold, reading, clock(), admin(), this::isClosed);
        GaugeFollower replaced = gauges.put(name, follower);
        if (replaced != null) {
            replaced.stop();
        }
        follower.start();
    }

    /** Stops following every gauge: the queue is gone. */
    protected final void stopFollowingGauges() {
        gauges.values().removeIf(follower -> {
            follower.stop();
            return true;
        });
    }

    @Override
    public final void unfollowGauge(String name) {
        checkOpen();
        GaugeFollower follower = gauges.remove(name);
        if (follower != null) {
            follower.stop();
        }
    }

    @Override
    public final void setConcurrency(int concurrency) {
        checkOpen();
        QueueOptions.builder().concurrency(concurrency).build();
        admin().setConcurrency(concurrency);
    }

    @Override
    public final void setGroupDefaults(GroupLimits limits) {
        checkOpen();
        if (limits == null) {
            throw new IllegalArgumentException("group limits must not be null; use GroupLimits.none()");
        }
        admin().setGroupDefaults(limits);
    }

    @Override
    public final void setGroupLimits(String group, GroupLimits limits) {
        checkOpen();
        QueueChecks.checkNamedGroup(group, "setGroupLimits");
        if (limits == null) {
            throw new IllegalArgumentException(
                    "limits of group '" + group + "' must not be null; use clearGroupLimits");
        }
        admin().setGroupLimits(group, limits);
    }

    @Override
    public final void clearGroupLimits(String group) {
        checkOpen();
        QueueChecks.checkNamedGroup(group, "clearGroupLimits");
        admin().clearGroupLimits(group);
    }

    @Override
    public final GroupLimits groupLimits(String group) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(group);
        return admin().groupLimits(group);
    }
}
