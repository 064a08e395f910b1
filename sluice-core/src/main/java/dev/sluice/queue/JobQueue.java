package dev.sluice.queue;

import dev.sluice.limit.RatePolicy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;

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
 * <h2>Delivery: at least once</h2>
 *
 * A job completes at most once, but its processor runs at least once and may run more than once: a worker
 * that closes with jobs still running at its deadline ({@link Worker#closeAsync}) interrupts them and sends
 * them back to waiting, and a processor that ignores the interrupt and goes on (its side effects included)
 * runs again on the next attempt. The same holds after a timeout, and on shared engines after a crash or a
 * lost lease. Make side effects idempotent with the job id as the key: it is unique in the queue, stays the
 * same across attempts, and can be chosen by the producer ({@link JobOptions#jobId}), for instance as the
 * {@code Idempotency-Key} of a payment API.
 *
 * <h2>Waiting, without blocking and for outcomes</h2>
 *
 * {@link #addAsync} and {@link #addBulkAsync} never block the caller's thread, also when a full queue makes
 * {@link #add} wait. {@link #whenFinished} is a future of one job's outcome (BullMQ's {@code
 * waitUntilFinished}), with its result. Results are stored as bytes, like payloads: a processor returns
 * {@link Result#done(Object, Codec)} with the codec of its result type, and a reader decodes with {@link
 * Job#result(Codec)} and an equal codec; {@link Result#done(String)} and {@link Job#result()} are the UTF-8
 * case. A codec per call, rather than per queue, keeps one payload type parameter on the queue and its
 * workers while the result stays typed at both ends. Workers run on virtual threads, which do not keep the JVM alive: a
 * {@code main} that adds jobs and returns abandons the jobs not yet run, silently. Wait for them with {@link
 * #awaitIdle} before closing the worker and the engine:
 *
 * <pre>{@code
 * try (Sluice sluice = Sluice.inMemory()) {
 *   JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
 *   queue.worker(job -> {
 *     send(job.payload());
 *     return Result.done();
 *   }, WorkerOptions.concurrency(8));
 *   queue.add("welcome", "ada@example.com");
 *   if (!queue.awaitIdle(Duration.ofMinutes(1))) {
 *     System.err.println("jobs left: " + queue.counts());
 *   }
 * } // close() gives running jobs 30 s, then sends them back to waiting
 * }</pre>
 *
 * @param <T> the payload type
 */
public interface JobQueue<T> {
    /**
     * The queue's name.
     *
     * @return the name it was opened with
     */
    String name();

    /**
     * The codec the queue's payloads are encoded with in this process: the one it was opened with, or for a queue
     * opened by {@link dev.sluice.Sluice#existingQueue} on a shared engine, one that reads and writes the payloads'
     * bytes as they are.
     *
     * @return the codec
     */
    Codec<T> codec();

    /**
     * The queue's options as they are now: its rate, concurrency and group defaults as last set (by {@link
     * #setRate}, {@link #setConcurrency}, {@link #setGroupDefaults}; on a shared engine, by any process), the rest
     * as this process opened the queue. On a shared engine this reads the server; once the engine has closed it
     * answers what it read last.
     *
     * @return the options
     */
    QueueOptions options();

    /**
     * Adds a job with the queue's default options.
     *
     * @param name what kind of job it is, 1 to {@value JobOptions#MAX_NAME_LENGTH} characters
     * @param payload its payload, which the queue's codec must be able to encode
     * @return the job added, or for a duplicate the job already held
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
     * <p>The adds of one thread ({@code add}, {@link #addAsync}, {@link #addBulk}, {@link #addBulkAsync}, in
     * any mix) are applied in the order of its calls, on every engine: of two jobs without a delay, of the same
     * group and priority, the one added by the earlier call runs first. The exception is an add that finds the queue (or
     * its group) full and waits for room ({@link QueueOptions.WhenFull#block}): it is applied when room comes,
     * after later adds of the thread that found room. Adds of different threads have no order between them.
     *
     * @param name what kind of job it is, 1 to {@value JobOptions#MAX_NAME_LENGTH} characters
     * @param payload its payload, which the queue's codec must be able to encode
     * @param options its options; unset values come from the queue's defaults
     * @return the job added, or for a duplicate the job already held
     * @throws IllegalArgumentException if the name or options are malformed, or the codec cannot encode the
     *     payload
     * @throws QueueFullException as {@link #add(String, Object)}
     */
    Added<T> add(String name, T payload, JobOptions options);

    /**
     * Adds many jobs in one call, all or none: if any is malformed or the queue has no room for all of them,
     * none is added. Duplicates (of held ids, or of an earlier job in the same list) are reported, not added.
     *
     * @param jobs the jobs, in order
     * @return one answer per job, in order
     * @throws IllegalArgumentException naming the first malformed job by its index
     * @throws QueueFullException if the jobs that are not duplicates do not fit in the queue or in one of their groups
     */
    List<Added<T>> addBulk(List<NewJob<T>> jobs);

    /**
     * {@link #add(String, Object, JobOptions)} with the queue's default options, without blocking.
     *
     * @param name what kind of job it is, 1 to {@value JobOptions#MAX_NAME_LENGTH} characters
     * @param payload its payload
     * @return as {@link #addAsync(String, Object, JobOptions)}
     * @throws IllegalArgumentException as {@link #addAsync(String, Object, JobOptions)}
     */
    default CompletableFuture<Added<T>> addAsync(String name, T payload) {
        return addAsync(name, payload, JobOptions.empty());
    }

    /**
     * Adds a job as {@link #add(String, Object, JobOptions)} does, without ever blocking the calling thread.
     * The arguments are checked and the payload encoded on the caller, so bad input throws here and nothing
     * is added; the add itself then completes the future. When the queue (or the job's group) is full and
     * {@link QueueOptions.WhenFull#block} waits, the future completes once room comes, or exceptionally with
     * {@link QueueFullException} when the wait ends without it; with {@link QueueOptions.WhenFull#reject()}
     * it completes exceptionally with {@link QueueFullException} at once. Cancelling the future does not
     * withdraw the add: find or remove the job by its id. The engine closing ends a wait for room, failing the
     * future.
     *
     * <p>The add is applied in the order of the thread's calls, before any add the thread calls after this
     * returns, also without waiting for the future ({@link #add(String, Object, JobOptions)} says when a wait
     * for room is the exception). The futures of several adds may complete in any order.
     *
     * @param name what kind of job it is, 1 to {@value JobOptions#MAX_NAME_LENGTH} characters
     * @param payload its payload
     * @param options its options; unset values come from the queue's defaults
     * @return the answer {@link #add(String, Object, JobOptions)} gives; completes exceptionally with {@link
     *     QueueFullException} as above, or {@link IllegalStateException} if the engine closes while the add
     *     waits for room
     * @throws IllegalArgumentException if the name or options are malformed, or the codec cannot encode the
     *     payload
     * @throws IllegalStateException if the engine is closed
     */
    CompletableFuture<Added<T>> addAsync(String name, T payload, JobOptions options);

    /**
     * Adds many jobs as {@link #addBulk} does, all or none, without ever blocking the calling thread; the
     * future completes as {@link #addAsync(String, Object, JobOptions)}'s does.
     *
     * @param jobs the jobs, in order
     * @return one answer per job, in order; completes exceptionally with {@link QueueFullException} if the
     *     jobs that are not duplicates do not fit (at once, or when a blocking wait ends), or {@link
     *     IllegalStateException} if the engine closes while the adds wait for room
     * @throws IllegalArgumentException naming the first malformed job by its index; nothing is added
     * @throws IllegalStateException if the engine is closed
     */
    CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> jobs);

    /**
     * The outcome of job {@code id}: a future that completes with the job's snapshot once it has completed
     * (state COMPLETED, with its {@link Job#result(Codec) result}) or failed for good (state FAILED, with its
     * {@link Job#failure() failure}), at once if it already has. A failed job is an outcome, not an error: the
     * future completes normally; check {@link Job#state()}. A job retried after it finished ({@link
     * #retry(String, JobState)}) has a new outcome, which a later call waits for.
     *
     * <p>A finished job is found as long as its retention keeps it ({@link JobOptions#keepCompleted}): call
     * this before the job can finish, or keep finished jobs long enough. The future is completed on a thread
     * of the engine's choosing, never under the queue's locks, so its callbacks may use the queue. It holds
     * nothing once it is done; an abandoned future is dropped when its job finishes or is removed.
     *
     * <pre>{@code
     * String id = queue.add("render", spec).job().id();
     * Job<Spec> done = queue.whenFinished(id).get(30, TimeUnit.SECONDS);
     * if (done.state() == JobState.COMPLETED) use(done.result(PDF));
     * else log(done.failure().reason());
     * }</pre>
     *
     * @param id the job's id
     * @return the finished job; completes exceptionally with {@link JobNotFoundException} if the queue holds
     *     no job {@code id} (never added, or already removed) or the job is removed before it finishes ({@link
     *     #remove}, {@link #drain}), and with {@link IllegalStateException} if the engine closes first
     * @throws IllegalArgumentException if {@code id} is null
     * @throws IllegalStateException if the engine is closed
     */
    CompletableFuture<Job<T>> whenFinished(String id);

    /**
     * Blocks until the queue holds no waiting, delayed or active job, or until {@code timeout} has passed on
     * the engine's clock. Delayed jobs count (a job delayed by an hour keeps the queue busy for an hour), and
     * so does a repeatable job's pending run; a paused queue, or one without workers, stays busy. Use it
     * before returning from a {@code main} or closing the engine, so that added jobs are not abandoned.
     *
     * @param timeout the longest wait, on the engine's clock; zero only looks
     * @return {@code true} if the queue was idle, {@code false} if the time ran out first
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     * @throws InterruptedException if the calling thread is interrupted while it waits
     * @throws IllegalStateException if the engine is closed, or the queue obliterated, before or while it waits
     */
    boolean awaitIdle(Duration timeout) throws InterruptedException;

    /**
     * A snapshot of job {@code id}, if the queue holds it. A payload the queue's codec cannot decode reads as
     * {@code null} (such a job fails for good when its processor asks for the payload); {@link #payloadBytes}
     * still reads its bytes.
     *
     * @param id the job's id
     * @return the job; empty if the queue holds no such job
     * @throws IllegalArgumentException if {@code id} is null
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

    /**
     * Jobs in each state, read at one instant.
     *
     * @return the counts
     */
    JobCounts counts();

    /**
     * Jobs in {@code state}, {@code limit} at most, skipping the first {@code offset}. Waiting jobs come in
     * the order they will run within their group, groups one after another; delayed jobs soonest first;
     * active jobs oldest start first; completed and failed jobs most recently finished first.
     *
     * @param state the state to list
     * @param offset how many to skip, 0 or more
     * @param limit the most to return, 1 to 10,000
     * @return snapshots of the jobs, in the order above
     * @throws IllegalArgumentException if state is null, offset is negative or limit is not 1 to 10,000
     */
    List<Job<T>> jobs(JobState state, int offset, int limit);

    /**
     * The jobs in {@code state}, {@code limit} at most, from the place {@code cursor} holds, which keeps while jobs move
     * ({@link JobPage} has the rules and the orders).
     *
     * @param state the state to list
     * @param cursor the {@link JobPage#next()} of the page before; {@code null} for the first page
     * @param limit the most to return, 1 to 10,000
     * @return the jobs and the next page's cursor
     * @throws IllegalArgumentException if state is null, limit is not 1 to 10,000, or the cursor is malformed or not
     *     this state's
     */
    JobPage<T> jobs(JobState state, String cursor, int limit);

    /** Stops jobs from starting (running ones go on). Adds are still accepted. */
    void pause();

    /** Lets jobs start again after {@link #pause()}. */
    void resume();

    /**
     * Whether {@link #pause()} holds.
     *
     * @return {@code true} between {@link #pause()} and {@link #resume()}
     */
    boolean isPaused();

    /**
     * Stops the jobs of {@code group} from starting until {@link #resumeGroup}; its running jobs go on, adds to it are
     * still accepted, and the other groups run as before. The pause holds while the group has no jobs, and on a shared
     * engine for every process.
     *
     * @param group the group's name; {@code null} for the ungrouped jobs
     * @throws IllegalArgumentException if the group name is malformed
     */
    void pauseGroup(String group);

    /**
     * Ends a pause of {@code group} now: one by {@link #pauseGroup}, or one by a rate-limited result ({@link
     * Result#rateLimited}) before its time. A group with a rate comes back as after a rate-limited pause, at a
     * fraction of its rate that ramps up from now, so that its backlog does not start all at once.
     *
     * @param group the group's name; {@code null} for the ungrouped jobs
     * @return whether the group was paused
     * @throws IllegalArgumentException if the group name is malformed
     */
    boolean resumeGroup(String group);

    /**
     * Removes a job that is not running. A caller waiting for its outcome ({@link #whenFinished}) hears that
     * it was removed.
     *
     * @param id the job's id
     * @return {@code false} if the queue holds no such job
     * @throws IllegalArgumentException if {@code id} is null
     * @throws IllegalStateException if the job is active: it cannot be taken from its worker
     */
    boolean remove(String id);

    /**
     * Sends a failed job back to waiting with fresh attempts: {@link #retry(String, JobState) retry(id,
     * FAILED)}.
     *
     * @param id the job's id
     * @throws IllegalArgumentException if {@code id} is null
     * @throws JobNotFoundException if the queue holds no such job
     * @throws IllegalStateException if the job is not failed
     */
    default void retry(String id) {
        retry(id, JobState.FAILED);
    }

    /**
     * Sends a finished job back to waiting, to run again with fresh attempts (BullMQ's {@code
     * job.retry(state)}). {@code state} says which finish the caller means, and the job must be in it: a
     * completed job is re-run only when asked for by {@code COMPLETED}, since running it again repeats its
     * side effects. The job keeps its id, options and attempt history; its failure, result and finish time are
     * cleared. A job that its retention has removed cannot be retried.
     *
     * @param id the job's id
     * @param state FAILED or COMPLETED: the state the job is in
     * @throws IllegalArgumentException if {@code id} is null, or {@code state} is neither FAILED nor COMPLETED
     * @throws JobNotFoundException if the queue holds no such job
     * @throws IllegalStateException if the job is not in {@code state}, naming the state it is in
     */
    void retry(String id, JobState state);

    /**
     * Sends every failed job back to waiting with fresh attempts.
     *
     * @return how many jobs it sent back
     */
    int retryFailed();

    /**
     * Removes completed or failed jobs that finished at least {@code age} ago.
     *
     * @param state COMPLETED or FAILED
     * @param age how long ago they finished, zero or more
     * @return how many jobs it removed
     * @throws IllegalArgumentException if state is not COMPLETED or FAILED, or age is null or negative
     */
    int clean(JobState state, Duration age);

    /**
     * Removes every waiting job and, if {@code delayedToo}, every delayed job. Callers waiting for their
     * outcomes ({@link #whenFinished}) hear that they were removed.
     *
     * @param delayedToo whether delayed jobs go too
     * @return how many jobs it removed
     */
    int drain(boolean delayedToo);

    /**
     * Makes a delayed job ready to run now, as if its delay had ended (BullMQ's {@code job.promote()}): it waits
     * behind the ready jobs of its group and priority. A repeatable job's run promoted so is followed by its next run
     * as planned.
     *
     * @param id the job's id
     * @throws IllegalArgumentException if {@code id} is null
     * @throws JobNotFoundException if the queue holds no such job
     * @throws IllegalStateException if the job is not delayed, naming the state it is in
     */
    void promote(String id);

    /**
     * Removes the queue and everything it holds: jobs in every state, groups and their limits and statistics, rates,
     * repeatable jobs and settings (BullMQ's {@code obliterate}); the engine no longer lists it ({@link
     * dev.sluice.Sluice#queueNames}). While workers are attached ({@link #workers()}) it is refused unless {@code
     * force}: forced, this process's workers of the queue close at once (their running jobs are interrupted, and
     * their outcomes are not recorded), and on a shared engine the jobs of other processes' workers cannot complete.
     * Callers waiting for an outcome ({@link #whenFinished}) hear that the job was removed, and callers of {@link
     * #awaitIdle} an {@link IllegalStateException} that says the queue was obliterated. From then on this object
     * refuses every use but {@code name()} and {@code options()}; opening the queue again creates it anew, as does a
     * process on a shared engine that goes on using it. On a shared engine a large queue is removed in steps, not at
     * one instant.
     *
     * @param force whether to remove it even while workers are attached
     * @throws IllegalStateException if workers are attached and {@code force} is false (the message says how many
     *     and where), or the queue was obliterated already
     */
    void obliterate(boolean force);

    /**
     * The workers attached to the queue now: on a shared engine, every process's, with their heartbeats and leases.
     *
     * @return the workers, by id
     */
    List<WorkerInfo> workers();

    /**
     * A worker running {@code processor} on this queue, started at once unless the options say otherwise.
     *
     * @param processor the work done for each job
     * @param options its concurrency, and whether it starts at once
     * @return the worker; close it (or the engine) when done
     * @throws IllegalArgumentException if an argument is null
     */
    Worker<T> worker(Processor<T> processor, WorkerOptions options);

    /**
     * Adds a job on a schedule, under {@code id}. Registering an id again with the same schedule and template
     * keeps its state (no run is missed or made twice); with another, it replaces it from now on.
     *
     * @param id 1 to 480 characters
     * @param schedule when it runs
     * @param template the job each run adds; it must not set a job id (each run has its own)
     * @return the repeatable job as registered
     * @throws IllegalArgumentException if the id, schedule or template is null, the id or template is
     *     malformed, or the payload cannot be encoded; nothing is registered
     */
    RepeatableJob<T> repeat(String id, Schedule schedule, NewJob<T> template);

    /**
     * Stops the repeatable job {@code id}: its next run, if it has not started, is removed; runs that started
     * stay.
     *
     * @param id the repeatable job's id
     * @return whether it existed
     * @throws IllegalArgumentException if {@code id} is null
     */
    boolean removeRepeatable(String id);

    /**
     * The repeatable jobs.
     *
     * @return their state, by id
     */
    List<RepeatableJob<T>> repeatables();

    /**
     * Changes the queue-wide rate from now on.
     *
     * @param rate a rate policy; {@code null} for none
     */
    void setRate(RatePolicy rate);

    /**
     * Follows a reading of this process that the queue's {@link dev.sluice.limit.AdaptiveRate} should respect (a
     * connection pool's use, a Micrometer gauge's value, Redis's CPU utilisation): it is read at once and then once a
     * second on the engine's clock while the queue is open, and a reading above {@code threshold} lowers the rate in
     * proportion ({@link RateChange.Reason#GRADIENT}, at most once per congestion episode). A reading that throws or
     * is NaN holds the rate where it is, told once ({@link RateChange.Reason#HELD}, and {@link
     * RateChange.Reason#RESUMED} when it reads again) and logged once. Without an adaptive queue rate, readings change
     * nothing. Following a gauge of the same name again replaces it.
     *
     * @param name what it measures, as rate changes name it: 1 to 128 of {@code [A-Za-z0-9._:-]}
     * @param threshold the reading above which the rate goes down, finite and above 0
     * @param reading what reads it; called on a thread of the engine's clock, so it should not block
     * @throws IllegalArgumentException if the name is malformed, the threshold not finite and above 0, or the reading
     *     null
     */
    void followGauge(String name, double threshold, DoubleSupplier reading);

    /**
     * Stops following the gauge {@code name}; nothing if the queue does not follow it.
     *
     * @param name the gauge's name
     */
    void unfollowGauge(String name);

    /**
     * Changes the queue-wide concurrency from now on.
     *
     * @param concurrency how many of the queue's jobs may run at once, over all workers: 1 or more
     * @throws IllegalArgumentException if it is below 1
     */
    void setConcurrency(int concurrency);

    /**
     * Changes the limits of every group without limits of its own.
     *
     * @param limits the new defaults
     * @throws IllegalArgumentException if {@code limits} is null
     */
    void setGroupDefaults(GroupLimits limits);

    /**
     * Gives {@code group} limits of its own.
     *
     * @param group the group's name (the ungrouped jobs have no limits of their own: they take the defaults)
     * @param limits its limits
     * @throws IllegalArgumentException if the group name is null or malformed, or {@code limits} is null
     */
    void setGroupLimits(String group, GroupLimits limits);

    /**
     * Returns {@code group} to the default limits.
     *
     * @param group the group's name
     * @throws IllegalArgumentException if the group name is null or malformed
     */
    void clearGroupLimits(String group);

    /**
     * The limits {@code group} runs under now.
     *
     * @param group the group's name; {@code null} for the ungrouped jobs
     * @return its own limits, or the defaults
     * @throws IllegalArgumentException if the group name is malformed
     */
    GroupLimits groupLimits(String group);

    /**
     * Adds a listener; it hears events from now on. On an engine shared by processes it hears every process's
     * events, which the engine reads from the server while this process has listeners.
     *
     * @param listener the listener
     * @throws IllegalArgumentException if {@code listener} is null
     * @throws dev.sluice.SluiceException if the engine's server cannot be reached to start listening (the
     *     listener is not added)
     */
    void addListener(QueueListener<T> listener);

    /**
     * Removes a listener added before. Once this returns it is told no further event, even of changes made before
     * that it had not heard yet (one it is being told at that moment may still be running).
     *
     * @param listener the listener, compared by identity
     * @return whether it was there
     */
    boolean removeListener(QueueListener<T> listener);

    /**
     * Blocks until this process's listeners have been told the events of every change this process made to the
     * queue before the call (on an engine shared by processes, and the other processes' events that came before
     * them), or until {@code timeout} has passed. Listeners are told on a thread of the queue's own after a change
     * is made, not by the call that made it, so a test that checks what a listener heard calls this first:
     *
     * <pre>{@code
     * queue.add("welcome", mail);
     * queue.awaitListeners(Duration.ofSeconds(5));
     * assertThat(heard).contains("welcome");
     * }</pre>
     *
     * @param timeout the longest wait, in real time (telling is work of this process's threads, not of the
     *     engine's clock); zero only looks
     * @return {@code true} if they have been told, {@code false} if the time ran out first
     * @throws IllegalArgumentException if {@code timeout} is null or negative
     * @throws IllegalStateException if the engine is closed, or if a listener of this queue calls it (it would wait
     *     for itself)
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    boolean awaitListeners(Duration timeout) throws InterruptedException;

    /**
     * Adds metrics that count and time the changes this process makes, from now on (see {@link QueueMetrics}). On an
     * engine shared by processes, they read nothing from the server and make it write nothing more.
     *
     * @param metrics the metrics
     * @throws IllegalArgumentException if {@code metrics} is null
     */
    void addMetrics(QueueMetrics metrics);

    /**
     * Removes metrics added before.
     *
     * @param metrics the metrics, compared by identity
     * @return whether they were there
     */
    boolean removeMetrics(QueueMetrics metrics);

    /**
     * Statistics of the whole queue.
     *
     * @return counts per state, totals, rates and latencies
     */
    QueueStats stats();

    /**
     * Statistics of one group. They outlive the group's idle spells: the in-memory engine keeps them for the
     * 10,000 most recently used groups (and for every group that holds jobs, kept finished ones included), the
     * Redis engine for a day after the group last held a waiting, delayed or running job. A group whose
     * statistics are no longer kept has zero totals and latencies.
     *
     * @param group the group's name; {@code null} for the ungrouped jobs
     * @return its counts per state, totals, rates and latencies
     * @throws IllegalArgumentException if the group name is malformed
     */
    QueueStats stats(String group);

    /**
     * The names of the groups whose statistics the queue keeps now ({@link #stats(String)}): every group that
     * holds a waiting, delayed or running job, and the groups that held one recently. The ungrouped jobs are not a
     * named group and are not listed: {@code stats(null)} has their statistics.
     *
     * @return the names, each once, in ascending {@link String#compareTo} order; a list that later changes to the
     *     queue do not change
     */
    List<String> groups();

    /**
     * A page of the groups {@link #groups()} names, with their state now: those whose names start with {@code
     * prefix}, in ascending {@link String#compareTo} order of name, beginning after {@code after}. Read the next page
     * with the last name of this one as {@code after}; a page shorter than {@code limit} is the last. A page's groups
     * are read one after another, not at one instant.
     *
     * @param prefix what the names start with; empty for every group
     * @param after the name the page begins after; {@code null} from the first
     * @param limit the most groups to return, 1 to 1,000
     * @return the groups, in name order
     * @throws IllegalArgumentException if {@code prefix} is null or {@code limit} is not 1 to 1,000
     */
    List<GroupInfo> groups(String prefix, String after, int limit);
}
