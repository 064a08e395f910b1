package dev.sluice.internal.queue;

import dev.sluice.queue.Added;
import dev.sluice.queue.NewJob;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How an engine adds jobs to a queue: the calls of {@link dev.sluice.queue.JobQueue} of the same names, made once
 * {@link QueueFront} has checked that the engine is open.
 *
 * @param <T> the queue's payloads
 */
public interface QueueAdds<T> {
    Added<T> add(NewJob<T> job);

    CompletableFuture<Added<T>> addAsync(NewJob<T> job);

    List<Added<T>> addBulk(List<NewJob<T>> jobs);

    CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> jobs);
}
