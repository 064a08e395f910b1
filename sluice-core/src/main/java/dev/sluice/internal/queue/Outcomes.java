package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobNotFoundException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Completes the futures {@code whenFinished} hands out. Their callbacks are the user's code and run on the thread
 * that completes them, so every engine completes them on a virtual thread of their own: never under a queue's lock,
 * and never on a worker's thread, where a callback that waits for another job of the queue would stall the worker
 * that must run it.
 */
public final class Outcomes {
    private Outcomes() {}

    /**
     * Completes {@code futures} with {@code job}, or exceptionally with {@code error} if it is not null, on a new
     * virtual thread.
     */
    public static <T> void completeLater(
            String queue, List<CompletableFuture<Job<T>>> futures, Job<T> job, RuntimeException error) {
        Thread.ofVirtual().name("sluice-" + queue + "-outcome").start(() -> {
            for (CompletableFuture<Job<T>> future : futures) {
                if (error == null) {
                    future.complete(job);
                } else {
                    future.completeExceptionally(error);
                }
            }
        });
    }

    /**
     * Completes {@code futures} with the job {@code job} gives, on a new virtual thread: what it costs to make (a
     * payload's decoding) is paid there, not by the caller.
     */
    public static <T> void completeLater(
            String queue, List<CompletableFuture<Job<T>>> futures, java.util.function.Supplier<Job<T>> job) {
        Thread.ofVirtual().name("sluice-" + queue + "-outcome").start(() -> {
            Job<T> finished = job.get();
            for (CompletableFuture<Job<T>> future : futures) {
                future.complete(finished);
            }
        });
    }

    /** What the futures of job {@code id} of {@code queue} end with when it is removed before it finished. */
    public static JobNotFoundException removedBeforeFinished(String queue, String id) {
        return new JobNotFoundException(queue, id, "it was removed before it finished");
    }
}
