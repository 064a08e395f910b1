package dev.sluice.internal.queue;

import dev.sluice.queue.QueueFullException;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * Adds that must not block their caller. The first try runs on the caller with no wait for room; only when
 * the queue is full and its {@code WhenFull} waits does a virtual thread take over the wait, with the deadline
 * fixed at the call. Adds that need no wait (the common case) start no thread.
 */
final class AsyncAdds {
    private AsyncAdds() {}

    /**
     * Runs {@code addUntil(deadline)}, which adds waiting for room until the engine-clock deadline it is given
     * (a deadline at or before now: no wait) and throws {@link QueueFullException} when there is none by then.
     *
     * @param now the engine clock when the add was called
     * @param blockForNanos how long the queue lets an add wait for room; 0 rejects at once
     */
    static <R> CompletableFuture<R> add(LongFunction<R> addUntil, long now, long blockForNanos, String threadName) {
        try {
            return CompletableFuture.completedFuture(addUntil.apply(now));
        } catch (QueueFullException full) {
            if (blockForNanos == 0) {
                return CompletableFuture.failedFuture(full);
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        long deadline = AttemptRules.saturatedAdd(now, blockForNanos);
        CompletableFuture<R> result = new CompletableFuture<>();
        Thread.ofVirtual().name(threadName).start(() -> {
            try {
                result.complete(addUntil.apply(deadline));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }
}
