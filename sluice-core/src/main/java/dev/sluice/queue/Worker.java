package dev.sluice.queue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a {@link Processor} over the jobs of one queue. Several workers may serve one queue; the queue's
 * limits (rate, concurrency, per group) hold across all of them. Thread-safe.
 *
 * <p>A started worker runs its jobs on virtual threads, which do not keep the JVM alive: when {@code main}
 * returns, jobs not yet run are abandoned without a word. Wait for them first with {@link
 * JobQueue#awaitIdle}, then close the worker (or the engine, which closes every worker).
 *
 * <p>Delivery is at least once. Closing gives running jobs until a deadline; a job still running then goes
 * back to waiting and its thread is interrupted. A processor that ignores the interrupt and finishes its
 * work anyway has done it once, and the job runs again on the next attempt (as it may after a timeout, or
 * a crash on a shared engine). Key side effects on {@link Job#id()}, which every attempt of a job shares.
 *
 * @param <T> the payload type
 */
public interface Worker<T> extends AutoCloseable {
    /** Starts taking jobs, if it has not started yet. */
    void start();

    /**
     * Runs, on the calling thread, every job that may start now (honouring the queue's limits and pauses),
     * one after another, until none may. For tests on a manual clock: advance the clock, then run what became
     * due.
     *
     * @return how many attempts it ran
     * @throws IllegalStateException if the worker has started or closed
     */
    int runDue();

    /**
     * How many jobs it is running now.
     *
     * @return 0 to its concurrency
     */
    int active();

    /**
     * Stops taking jobs and lets the running ones finish until {@code deadline} has passed on the engine's
     * clock; jobs still running then go back to waiting (their attempt is not counted) and their threads are
     * interrupted. Nothing the worker took is lost. A processor that ignores the interrupt may still finish
     * its work, and its job runs again: delivery is at least once. To let queued jobs finish first, call
     * {@link JobQueue#awaitIdle} before closing.
     *
     * @param deadline how long running jobs may go on, on the engine's clock; zero returns them at once
     * @return completes when every job has finished or gone back, and the worker takes no job from then on (a
     *     claim already on its way to a shared engine is answered first; a job it brings counts as running); a
     *     second close returns the first's outcome
     * @throws IllegalArgumentException if {@code deadline} is null or negative
     */
    CompletableFuture<CloseReport> closeAsync(Duration deadline);

    /**
     * {@link #closeAsync} and wait for it.
     *
     * @param deadline as {@link #closeAsync}
     * @return what the close did
     * @throws IllegalArgumentException if {@code deadline} is null or negative
     */
    default CloseReport close(Duration deadline) {
        return closeAsync(deadline).join();
    }

    /** Closes with a deadline of 30 seconds. */
    @Override
    default void close() {
        close(Duration.ofSeconds(30));
    }

    /**
     * What a close did.
     *
     * @param finished jobs that finished (whatever their outcome) while the worker closed
     * @param returned jobs that were still running at the deadline and went back to waiting
     */
    record CloseReport(int finished, int returned) {}
}
