package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;

/**
 * What the queue contract suites share, on top of {@link ContractSupport}: a UTF-8 queue on this test's
 * engine, workers that are closed after the test, processors that record or block, a listener that records
 * events as text, and waiting on real threads with Awaitility.
 *
 * <p>Everything goes through the public API ({@code dev.sluice.queue}, {@code dev.sluice.limit},
 * {@code dev.sluice.time}), so that every engine can run the same suites.
 */
public abstract class QueueContractSupport extends ContractSupport {
    /** {@link ContractSupport#T0} as an instant: 2026-01-01T00:00:00Z. */
    protected static final Instant START = Instant.ofEpochSecond(T0 / SECOND);

    /** The name of the queue {@link #newQueue()} opens. */
    protected static final String QUEUE = "jobs";

    private final List<Worker<?>> workers = new CopyOnWriteArrayList<>();
    private final List<Blocker> blockers = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    /** For subclasses: the contract suites. */
    protected QueueContractSupport() {}

    /**
     * Where the engine differs from the in-memory one, as the specification allows.
     *
     * @return the enclosing {@link QueueContract}'s, for a nested suite; else {@link EngineDifferences#none()} unless
     *     overridden
     */
    protected EngineDifferences differences() {
        return enclosing instanceof QueueContract queues ? queues.differences() : EngineDifferences.none();
    }

    /**
     * Lets every blocked processor go and closes every worker the test made, with a zero deadline, so that
     * closing the engine afterwards never waits on a manual clock that no one moves.
     *
     * @throws InterruptedException if interrupted while joining the test's threads
     */
    @AfterEach
    protected final void stopWorkersAndThreads() throws InterruptedException {
        blockers.forEach(Blocker::releaseAll);
        List<CompletableFuture<?>> closing = new ArrayList<>();
        for (Worker<?> worker : workers) {
            try {
                closing.add(worker.closeAsync(Duration.ZERO));
            } catch (RuntimeException alreadyClosed) {
                // the test closed it, or the engine refuses a second close: either way it is closed
            }
        }
        clock.runDue();
        for (CompletableFuture<?> future : closing) {
            try {
                future.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                // cleanup only: what a close reports is checked by the tests that close
            }
        }
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(5_000);
        }
        workers.clear();
        blockers.clear();
        threads.clear();
    }

    // ---------------------------------------------------------------------------------------------- time

    /**
     * The instant {@code nanos} after {@link #START}.
     *
     * @param nanos nanoseconds after the start
     * @return that instant
     */
    protected static Instant at(long nanos) {
        return START.plusNanos(nanos);
    }

    /**
     * The instant {@code millis} milliseconds after {@link #START}.
     *
     * @param millis milliseconds after the start
     * @return that instant
     */
    protected static Instant atMillis(long millis) {
        return START.plusMillis(millis);
    }

    /**
     * Moves this test's clock forward by {@code millis} milliseconds, running what falls due.
     *
     * @param millis how far to move the clock, in milliseconds
     */
    protected final void advanceMillis(long millis) {
        clock.advance(Duration.ofMillis(millis));
    }

    /**
     * Waiting on real threads: up to 10 s, polling every millisecond.
     *
     * @return an Awaitility wait, to be given the condition
     */
    protected static ConditionFactory eventually() {
        return Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1));
    }

    /**
     * Waits on real threads until {@code queue} has completed {@code total} jobs in all, for as long as completions
     * keep coming: fails, saying how many completed, once 10 s pass without one. A loaded machine slows the jobs,
     * but a lost job stops them.
     *
     * @param queue the queue
     * @param total the completions to wait for
     */
    protected static void awaitCompleted(JobQueue<?> queue, long total) {
        long[] seen = {-1};
        long[] lastChange = {System.nanoTime()};
        Awaitility.await()
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> {
                    long completed = queue.stats().completed();
                    if (completed != seen[0]) {
                        seen[0] = completed;
                        lastChange[0] = System.nanoTime();
                    }
                    assertThat(System.nanoTime() - lastChange[0])
                            .as(
                                    "no job completed for 10 s: %s of %s completed, counts %s",
                                    completed, total, queue.counts())
                            .isLessThan(Duration.ofSeconds(10).toNanos());
                    return completed == total;
                });
    }

    /**
     * Waits until {@code queue}'s listeners have heard every change this process made so far (listeners are told
     * on the queue's own thread, after the change), failing the test after 10 s.
     *
     * @param queue the queue
     */
    protected static void told(JobQueue<?> queue) {
        try {
            assertThat(queue.awaitListeners(Duration.ofSeconds(10)))
                    .as("the listeners of %s heard every change within 10 s", queue.name())
                    .isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for the listeners", e);
        }
    }

    // ---------------------------------------------------------------------------------------------- queues

    /**
     * The queue {@value #QUEUE} of UTF-8 strings with default options.
     *
     * @return the queue, from this test's engine
     */
    protected final JobQueue<String> newQueue() {
        return engine.queue(QUEUE, Codec.utf8());
    }

    /**
     * The queue {@value #QUEUE} of UTF-8 strings with {@code options}.
     *
     * @param options the options of the queue
     * @return the queue, from this test's engine
     */
    protected final JobQueue<String> newQueue(QueueOptions options) {
        return engine.queue(QUEUE, Codec.utf8(), options);
    }

    /**
     * The queue {@value #QUEUE} whose jobs default to {@code jobDefaults}.
     *
     * @param jobDefaults the default options of every job, built by this call
     * @return the queue, from this test's engine
     */
    protected final JobQueue<String> newQueue(JobOptions.Builder jobDefaults) {
        return newQueue(QueueOptions.builder().jobDefaults(jobDefaults.build()).build());
    }

    /**
     * A worker that runs only when {@link Worker#runDue()} is called; closed after the test.
     *
     * @param queue the queue the worker takes jobs from
     * @param processor what runs each job
     * @return the worker, not started
     */
    protected final Worker<String> manualWorker(JobQueue<String> queue, Processor<String> processor) {
        return track(queue.worker(processor, WorkerOptions.manual()));
    }

    /**
     * A started worker running {@code concurrency} jobs at once; closed after the test.
     *
     * @param queue the queue the worker takes jobs from
     * @param processor what runs each job
     * @param concurrency how many jobs the worker runs at once, at least 1
     * @return the worker, started
     */
    protected final Worker<String> startedWorker(JobQueue<String> queue, Processor<String> processor, int concurrency) {
        return track(queue.worker(processor, WorkerOptions.concurrency(concurrency)));
    }

    /**
     * Closes {@code worker} after the test (with a zero deadline) unless the test did.
     *
     * @param <W> the type of the worker
     * @param worker a worker of this test
     * @return {@code worker}
     */
    protected final <W extends Worker<?>> W track(W worker) {
        workers.add(worker);
        return worker;
    }

    /**
     * A blocking processor whose jobs are let go after the test at the latest.
     *
     * @return a new blocker, with every job held
     */
    protected final Blocker blocker() {
        Blocker blocker = new Blocker();
        blockers.add(blocker);
        return blocker;
    }

    /**
     * Runs {@code action} on a new platform thread, interrupted and joined after the test.
     *
     * @param <R> the type of the action's result
     * @param action what the thread runs
     * @return the started thread and the future of what {@code action} returns or throws
     */
    protected final <R> Async<R> async(Supplier<R> action) {
        CompletableFuture<R> future = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().daemon().unstarted(() -> {
            try {
                future.complete(action.get());
            } catch (Throwable t) {
                future.completeExceptionally(t);
            }
        });
        threads.add(thread);
        thread.start();
        return new Async<>(thread, future);
    }

    /**
     * Why {@code future} failed, waiting for it up to 10 s of real time; an assertion error if it did not.
     *
     * @param future the future of a call that must fail
     * @return the exception {@code future} completed with
     * @throws AssertionError if it completed normally or did not complete within 10 s
     */
    protected static Throwable failureOf(CompletableFuture<?> future) {
        try {
            future.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("the future did not fail within 10 s", e);
        }
        throw new AssertionError("the future completed normally");
    }

    /**
     * An action running on its own thread, and its outcome.
     *
     * @param <R> the type of the action's result
     * @param thread the thread running the action
     * @param future what the action returns or throws
     */
    protected record Async<R>(Thread thread, CompletableFuture<R> future) {
        /**
         * Whether the thread is parked (waiting, with or without a timeout).
         *
         * @return true if the thread is in state {@code WAITING} or {@code TIMED_WAITING}
         */
        public boolean isParked() {
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        }
    }

    // ---------------------------------------------------------------------------------------------- jobs

    /**
     * Options with a job id.
     *
     * @param id the job id
     * @return options with that job id only
     */
    protected static JobOptions withId(String id) {
        return JobOptions.builder().jobId(id).build();
    }

    /**
     * A builder of options with a job id.
     *
     * @param id the job id
     * @return a builder with that job id set, for further options
     */
    protected static JobOptions.Builder id(String id) {
        return JobOptions.builder().jobId(id);
    }

    /**
     * Options with a job id and a group.
     *
     * @param id the job id
     * @param group the group
     * @return options with that job id and group only
     */
    protected static JobOptions inGroup(String id, String group) {
        return JobOptions.builder().jobId(id).group(group).build();
    }

    /**
     * The job {@code id}, which the queue must hold.
     *
     * @param <T> the type of the queue's payloads
     * @param queue the queue
     * @param id the job id
     * @return a snapshot of the job
     * @throws AssertionError if the queue holds no job {@code id}
     */
    protected static <T> Job<T> job(JobQueue<T> queue, String id) {
        return queue.job(id).orElseThrow(() -> new AssertionError("queue " + queue.name() + " holds no job " + id));
    }

    /**
     * The state of job {@code id}, which the queue must hold.
     *
     * @param queue the queue
     * @param id the job id
     * @return the job's state
     * @throws AssertionError if the queue holds no job {@code id}
     */
    protected static JobState stateOf(JobQueue<?> queue, String id) {
        return job(queue, id).state();
    }

    /**
     * The ids of {@code jobs}, in order.
     *
     * @param jobs job snapshots
     * @return their ids, in the same order
     */
    protected static List<String> ids(List<? extends Job<?>> jobs) {
        return jobs.stream().map(Job::id).toList();
    }

    /**
     * Counts to compare with {@link JobQueue#counts()}.
     *
     * @param waiting jobs ready to run
     * @param delayed jobs waiting for a time
     * @param active jobs running
     * @param completed jobs completed and still kept
     * @param failed jobs failed and still kept
     * @return the counts
     */
    protected static JobCounts counts(long waiting, long delayed, long active, long completed, long failed) {
        return new JobCounts(waiting, delayed, active, completed, failed);
    }

    /**
     * A processor that records the id of every job it runs, in order, and completes it.
     *
     * @param ran the list the ids are added to
     * @return the processor
     */
    protected static Processor<String> recording(List<String> ran) {
        return ctx -> {
            ran.add(ctx.job().id());
            return Result.done();
        };
    }

    /**
     * Adds c1, f1, c2, f2, c3 and runs them, each taking one second of the clock: the c jobs complete and the
     * f jobs (named "fail", one attempt) fail, at 1 s, 2 s, ... 5 s after the start.
     *
     * @param queue the queue to add the jobs to
     */
    protected final void finishFiveJobsOneSecondApart(JobQueue<String> queue) {
        for (String id : List.of("c1", "f1", "c2", "f2", "c3")) {
            queue.add(id.startsWith("f") ? "fail" : "ok", "p", withId(id));
        }
        manualWorker(queue, ctx -> {
                    clock.advance(Duration.ofSeconds(1));
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done();
                })
                .runDue();
    }

    /**
     * A processor that completes every job at once.
     *
     * @return the processor
     */
    protected static Processor<String> completing() {
        return ctx -> Result.done();
    }

    /**
     * A processor that takes {@code millis} of the manual clock (moving it) and then completes.
     *
     * @param millis how far each job moves the clock, in milliseconds
     * @return the processor
     */
    protected final Processor<String> taking(long millis) {
        return ctx -> {
            clock.advance(Duration.ofMillis(millis));
            return Result.done();
        };
    }

    /** The threads processors ran on, for tests that record them ({@code slotThreads.add(Thread.currentThread())}). */
    protected final Set<Thread> slotThreads = ConcurrentHashMap.newKeySet();

    /**
     * Waits until every thread in {@link #slotThreads} is parked: only a wake-up by the queue makes it go on (or, on
     * an engine whose idle slots look for other processes' work, the end of their interval).
     */
    protected final void awaitSlotsParked() {
        boolean untimed = differences().idleSlotsWaitWithoutTimeout();
        eventually()
                .until(() -> slotThreads.stream()
                        .allMatch(t -> t.getState() == Thread.State.WAITING
                                || (!untimed && t.getState() == Thread.State.TIMED_WAITING)));
    }

    /**
     * Waits until every thread in {@link #slotThreads} waits, timed or not: for work, or inside a processor that
     * blocks or sleeps.
     */
    protected final void awaitSlotsWaiting() {
        eventually()
                .until(() -> slotThreads.stream()
                        .allMatch(t ->
                                t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING));
    }

    /**
     * A new queue that holds at most {@code maxQueued} waiting and delayed jobs.
     *
     * @param maxQueued the bound
     * @param whenFull what an add does when the queue is full
     * @return the queue
     */
    protected final JobQueue<String> bounded(int maxQueued, QueueOptions.WhenFull whenFull) {
        return newQueue(
                QueueOptions.builder().maxQueued(maxQueued).whenFull(whenFull).build());
    }

    /**
     * The runs of repeatable {@code id} that are waiting or delayed, soonest first.
     *
     * @param queue the queue
     * @param id the repeatable job's id
     * @return its pending runs
     */
    protected static List<Job<String>> pendingRuns(JobQueue<String> queue, String id) {
        String prefix = "repeat:" + id + ":";
        return java.util.stream.Stream.concat(
                        queue.jobs(JobState.WAITING, 0, 10_000).stream(),
                        queue.jobs(JobState.DELAYED, 0, 10_000).stream())
                .filter(job -> job.id().startsWith(prefix))
                .sorted((x, y) -> x.id().compareTo(y.id()))
                .toList();
    }

    /**
     * A processor that always throws {@link Boom} with {@code message}.
     *
     * @param message the message of every exception
     * @return the processor
     */
    protected static Processor<String> throwing(String message) {
        return ctx -> {
            throw new Boom(message);
        };
    }

    /** The exception the test processors throw, so that its class name can be checked exactly. */
    public static final class Boom extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /**
         * A failure saying {@code message}.
         *
         * @param message the exception's message
         */
        public Boom(String message) {
            super(message);
        }
    }
}
