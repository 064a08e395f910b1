package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Callers waiting on a queue: for one job's outcome ({@code whenFinished}) or for the queue to be idle
 * ({@code awaitIdle}). Guarded by the queue's lock; the queue tells it when a job finishes or is removed,
 * when it is idle, and when the engine closes.
 *
 * <p>Outcome futures are handed to users, whose callbacks run on the thread that completes them, so they are
 * completed on a virtual thread of their own, never under the queue's lock. Idle futures are only ever waited
 * on by {@code awaitIdle} itself and are completed in place.
 */
final class Waiters<T> {
    private final String queue;
    private final HashMap<String, List<CompletableFuture<Job<T>>>> outcomes = new HashMap<>();
    private final List<CompletableFuture<Boolean>> idle = new ArrayList<>();

    Waiters(String queue) {
        this.queue = queue;
    }

    /** A future of job {@code id}'s outcome, completed by {@link #finished} or {@link #removed}. */
    CompletableFuture<Job<T>> outcomeOf(String id) {
        CompletableFuture<Job<T>> future = new CompletableFuture<>();
        outcomes.computeIfAbsent(id, k -> new ArrayList<>(1)).add(future);
        return future;
    }

    /** Whether anyone waits for job {@code id}'s outcome: if not, the queue need not take a snapshot. */
    boolean waitsFor(String id) {
        return !outcomes.isEmpty() && outcomes.containsKey(id);
    }

    /** Job {@code job.id()} finished as {@code job} shows. */
    void finished(Undecoded<T> job) {
        List<CompletableFuture<Job<T>>> waiting = outcomes.remove(job.id());
        if (waiting != null) {
            Outcomes.completeLater(queue, waiting, job::job);
        }
    }

    /** Job {@code id} was removed before it finished. */
    void removed(String id) {
        List<CompletableFuture<Job<T>>> waiting = outcomes.remove(id);
        if (waiting != null) {
            completeLater(waiting, null, Outcomes.removedBeforeFinished(queue, id));
        }
    }

    /**
     * A future that {@link #idle()} completes with {@code true}; the caller completes it with {@code false}. It
     * stays here until the caller {@linkplain #forget forgets} it.
     */
    CompletableFuture<Boolean> idleSignal() {
        CompletableFuture<Boolean> future = new CompletableFuture<>();
        idle.add(future);
        return future;
    }

    /** Drops an idle future its waiter no longer waits on: every waiter does, once it has its answer. */
    void forget(CompletableFuture<Boolean> future) {
        idle.remove(future);
    }

    /** The queue holds no waiting, delayed or active job. */
    void idle() {
        idle.forEach(f -> f.complete(true));
    }

    /**
     * The queue was obliterated: every job waited for was removed, and those waiting for the queue to be idle hear
     * {@code obliterated}, as they would hear of an engine's close.
     */
    void obliterated(IllegalStateException obliterated) {
        outcomes.forEach((id, waiting) -> completeLater(waiting, null, Outcomes.removedBeforeFinished(queue, id)));
        outcomes.clear();
        idle.forEach(f -> f.completeExceptionally(obliterated));
    }

    /** The engine closed: every waiter ends with {@code closed}. */
    void closed(IllegalStateException closed) {
        for (List<CompletableFuture<Job<T>>> waiting : outcomes.values()) {
            completeLater(waiting, null, closed);
        }
        outcomes.clear();
        idle.forEach(f -> f.completeExceptionally(closed));
    }

    private void completeLater(List<CompletableFuture<Job<T>>> futures, Job<T> job, RuntimeException error) {
        Outcomes.completeLater(queue, futures, job, error);
    }
}
