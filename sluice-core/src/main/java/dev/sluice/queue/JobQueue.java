package dev.sluice.queue;

import dev.sluice.limit.LimitPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A named queue of jobs in an engine ({@link dev.sluice.Sluice#queue}). Producers add jobs; {@link Worker}s
 * run them. Thread-safe; every change of a job's state is atomic.
 *
 * <h2>Order and fairness</h2>
 *
 * Jobs belong to groups (tenants; {@link JobOptions#group}), and ungrouped jobs form one group of their
 * own. Groups with jobs ready to run are served round-robin, one job each in turn, so a group with 100,000
 * waiting jobs does not delay a group with one. Within a group a larger priority runs first, and equal
 * priorities run in the order they became ready.
 *
 * <h2>Limits</h2>
 *
 * A job starts only when the queue-wide rate and concurrency, its group's rate and concurrency, and any
 * rate-limit pause of the queue or of its group allow it. A group's limits are its own ({@link
 * #setGroupLimits}) or the queue's defaults. A group's working state is released when it has no waiting,
 * delayed or running job and no pause; its own limits are kept until cleared, and its statistics as {@link
 * #stats(String)} says.
 *
 * @param <T> the payload type
 */
public interface JobQueue<T> {
    /** The queue's name. */
    String name();

    /** The options the queue was created with (limits changed since are read with the getters below). */
    QueueOptions options();

    /**
     * Adds a job with the queue's default options.
     *
     * @throws IllegalArgumentException if the name is malformed or the codec cannot encode the payload
     * @throws QueueFullException if the queue, or the job's group, is full (after waiting, when it blocks)
     */
    default Added<T> add(String name, T payload) {
        return add(name, payload, JobOptions.empty());
    }

    /**
     * Adds a job. If the options carry a job id that the queue holds (or still remembers, {@link
     * JobOptions#deduplicateFor}), nothing is added and the answer says it was a duplicate.
     *
     * @throws IllegalArgumentException if the name or options are malformed, or the codec cannot encode the
     *     payload
     * @throws QueueFullException as {@link #add(String, Object)}
     */
    Added<T> add(String name, T payload, JobOptions options);

    /**
     * Adds many jobs in one call, all or none: if any is malformed or the queue has no room for all of them,
     * none is added. Duplicates (of held ids, or of an earlier job in the same list) are reported, not added.
     *
     * @return one answer per job, in order
     * @throws IllegalArgumentException naming the first malformed job by its index
     * @throws QueueFullException if the jobs that are not duplicates do not fit in the queue or in one of their groups
     */
    List<Added<T>> addBulk(List<NewJob<T>> jobs);

    /**
     * A snapshot of job {@code id}, if the queue holds it. A payload the queue's codec cannot decode reads as
     * {@code null} (such a job fails for good when its processor asks for the payload); {@link #payloadBytes}
     * still reads its bytes.
     */
    Optional<Job<T>> job(String id);

    /**
     * The payload of job {@code id} as the codec encoded it, if the queue holds the job: a copy, readable
     * whether or not the codec can decode it.
     *
     * @param id the job's id
     * @return the encoded payload, or empty if the queue holds no such job
     * @throws IllegalArgumentException if {@code id} is null
     */
    Optional<byte[]> payloadBytes(String id);

    /** Jobs in each state, read at one instant. */
    JobCounts counts();

    /**
     * Jobs in {@code state}, {@code limit} at most, skipping the first {@code offset}. Waiting jobs come in
     * the order they will run within their group, groups one after another; delayed jobs soonest first;
     * active jobs oldest start first; completed and failed jobs most recently finished first.
     *
     * @throws IllegalArgumentException if offset is negative or limit is not 1 to 10,000
     */
    List<Job<T>> jobs(JobState state, int offset, int limit);

    /** Stops jobs from starting (running ones go on). Adds are still accepted. */
    void pause();

    /** Lets jobs start again after {@link #pause()}. */
    void resume();

    /** Whether {@link #pause()} holds. */
    boolean isPaused();

    /**
     * Removes a job that is not running.
     *
     * @return {@code false} if the queue holds no such job
     * @throws IllegalStateException if the job is active: it cannot be taken from its worker
     */
    boolean remove(String id);

    /**
     * Sends a failed job back to waiting with fresh attempts.
     *
     * @throws JobNotFoundException if the queue holds no such job
     * @throws IllegalStateException if the job is not failed
     */
    void retry(String id);

    /** Sends every failed job back to waiting with fresh attempts; returns how many. */
    int retryFailed();

    /**
     * Removes completed or failed jobs that finished at least {@code age} ago; returns how many.
     *
     * @throws IllegalArgumentException if state is not COMPLETED or FAILED, or age is negative
     */
    int clean(JobState state, Duration age);

    /** Removes every waiting job and, if {@code delayedToo}, every delayed job; returns how many. */
    int drain(boolean delayedToo);

    /** Starts a worker running {@code processor} on this queue. */
    Worker<T> worker(Processor<T> processor, WorkerOptions options);

    /**
     * Adds a job on a schedule, under {@code id}. Registering an id again with the same schedule and template
     * keeps its state (no run is missed or made twice); with another, it replaces it from now on.
     *
     * @param id 1 to 480 characters
     * @throws IllegalArgumentException if the id or template is malformed, or the payload cannot be encoded
     */
    RepeatableJob<T> repeat(String id, Schedule schedule, NewJob<T> template);

    /**
     * Stops the repeatable job {@code id}: its next run, if it has not started, is removed; runs that started
     * stay. Returns whether it existed.
     */
    boolean removeRepeatable(String id);

    /** The repeatable jobs, by id. */
    List<RepeatableJob<T>> repeatables();

    /** Changes the queue-wide rate ({@code null}: none) from now on. */
    void setRate(LimitPolicy rate);

    /** Changes the queue-wide concurrency from now on. */
    void setConcurrency(int concurrency);

    /** Changes the limits of every group without limits of its own. */
    void setGroupDefaults(GroupLimits limits);

    /** Gives {@code group} limits of its own. */
    void setGroupLimits(String group, GroupLimits limits);

    /** Returns {@code group} to the default limits. */
    void clearGroupLimits(String group);

    /** The limits {@code group} runs under now. */
    GroupLimits groupLimits(String group);

    /** Adds a listener; it hears events from now on. */
    void addListener(QueueListener<T> listener);

    /** Removes a listener added before; returns whether it was there. */
    boolean removeListener(QueueListener<T> listener);

    /** Statistics of the whole queue. */
    QueueStats stats();

    /**
     * Statistics of one group ({@code null}: the ungrouped jobs). They outlive the group's idle spells: the
     * queue keeps them for the 10,000 most recently used groups.
     */
    QueueStats stats(String group);
}
