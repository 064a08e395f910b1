package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.Outcomes;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobState;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whoever in this process waits on a Redis queue: for a job's outcome ({@code whenFinished}) or for the queue to be
 * idle ({@code awaitIdle}). They hear the endings of every process through the queue's events, which are held
 * while anyone waits; when events were missed, each looks at Redis again.
 */
final class RedisOutcomes<T> {
    private static final Logger LOG = LoggerFactory.getLogger(RedisOutcomes.class);

    private final RedisJobQueue<T> queue;
    private final String name;
    private final Map<String, List<CompletableFuture<Job<T>>>> outcomes = new ConcurrentHashMap<>();

    RedisOutcomes(RedisJobQueue<T> queue) {
        this.queue = queue;
        this.name = queue.name();
    }

    /** Whether someone waits for a job's outcome. */
    boolean anyAwaited() {
        return !outcomes.isEmpty();
    }

    /** The queue closed: every future still waiting fails, saying so. */
    void closed() {
        for (List<CompletableFuture<Job<T>>> waiting : List.copyOf(outcomes.values())) {
            Outcomes.completeLater(name, waiting, null, Limits.closed(queue));
        }
    }

    /** The queue was obliterated: every job waited for was removed. */
    void obliterated() {
        for (String id : List.copyOf(outcomes.keySet())) {
            removedBeforeFinishing(id);
        }
    }

    /** A job of this queue finished as {@code job} shows: tells whoever waits for it. */
    void finished(Job<T> job) {
        List<CompletableFuture<Job<T>>> waiting = outcomes.remove(job.id());
        if (waiting != null) {
            Outcomes.completeLater(name, waiting, job, null);
        }
    }

    /** A job of this queue was taken out before it finished, by a call of any process: whoever waits for it is told. */
    void removedBeforeFinishing(String id) {
        List<CompletableFuture<Job<T>>> waiting = outcomes.remove(id);
        if (waiting != null) {
            Outcomes.completeLater(name, waiting, null, Outcomes.removedBeforeFinished(name, id));
        }
        queue.signal();
    }

    /** Events were missed: whoever waits for a job's outcome, or for the queue to be idle, looks again. */
    void eventsMissed() {
        queue.signal();
        for (String id : List.copyOf(outcomes.keySet())) {
            try {
                Optional<Job<T>> job = queue.job(id);
                if (job.isEmpty() && !queue.finishing.contains(id)) {
                    removedBeforeFinishing(id);
                } else if (job.isPresent() && isFinished(job.get())) {
                    finished(job.get());
                }
            } catch (RuntimeException e) {
                LOG.warn("{}: after missed events, job '{}' could not be looked at again", queue, id, e);
            }
        }
    }

    /** Whether someone in this process waits for job {@code id}'s outcome. */
    boolean awaits(String id) {
        return id != null && outcomes.containsKey(id);
    }

    /** The job's outcome, for {@link RedisJobQueue#whenFinished} (which checked the id). */
    CompletableFuture<Job<T>> whenFinished(String id) {
        Optional<Job<T>> before = queue.job(id);
        if (before.isPresent() && isFinished(before.get())) {
            return CompletableFuture.completedFuture(before.get());
        }
        if (before.isEmpty() && !queue.finishing.contains(id)) {
            return CompletableFuture.failedFuture(new JobNotFoundException(name, id));
        }
        CompletableFuture<Job<T>> future = new CompletableFuture<>();
        // heard from the events of every process: held before the job is looked at again, so that no ending
        // after that is missed
        queue.events.hold(false);
        outcomes.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(future);
        future.whenComplete((job, failure) -> {
            forgetOutcome(id, future);
            queue.events.release();
        });
        Optional<Job<T>> now;
        try {
            now = queue.job(id);
        } catch (RuntimeException e) {
            future.completeExceptionally(e);
            throw e;
        }
        if (now.isEmpty()) {
            if (queue.finishing.contains(id)) {
                Thread.ofVirtual().name("sluice-" + name + "-outcome").start(() -> awaitFinishing(id, future));
                return future;
            }
            if (!future.isDone()) {
                future.completeExceptionally(new JobNotFoundException(name, id));
            }
            return future;
        }
        if (isFinished(now.get())) {
            future.complete(now.get());
        }
        return future;
    }

    private static boolean isFinished(Job<?> job) {
        return job.state() == JobState.COMPLETED || job.state() == JobState.FAILED;
    }

    /**
     * A job gone while a worker of this process records its end (kept by none): that worker completes the
     * future; if it did not (its lease was lost), the job is reported missing once the worker is done.
     */
    private void awaitFinishing(String id, CompletableFuture<Job<T>> future) {
        try {
            while (!future.isDone() && queue.finishing.contains(id) && !queue.closed) {
                queue.awaitChangeAfter(queue.changes(), RedisJobQueue.POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!future.isDone()) {
            future.completeExceptionally(
                    queue.closed ? Limits.closed(queue) : Outcomes.removedBeforeFinished(name, id));
        }
    }

    private void forgetOutcome(String id, CompletableFuture<Job<T>> future) {
        outcomes.computeIfPresent(id, (k, list) -> {
            list.remove(future);
            return list.isEmpty() ? null : list;
        });
    }

    /** Whether the queue became idle within {@code timeout}, for {@link RedisJobQueue#awaitIdle} (which checked it). */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        if (isIdle()) {
            return true;
        }
        if (timeout.isZero()) {
            return false;
        }
        boolean[] timedOut = {false};
        long nanos = timeout.compareTo(Duration.ofNanos(SluiceClock.MAX_NANOS)) > 0
                ? SluiceClock.MAX_NANOS
                : timeout.toNanos();
        // every way the queue becomes idle, in any process, is an event (drained, removed): the reader signals
        queue.events.hold(false);
        SluiceClock.Timer timer = queue.clock().schedule(nanos, () -> {
            timedOut[0] = true;
            queue.signal();
        });
        try {
            while (true) {
                long seen = queue.changes();
                queue.checkOpen();
                if (isIdle()) {
                    return true;
                }
                if (timedOut[0]) {
                    return false;
                }
                queue.awaitChangeAfter(seen, Long.MAX_VALUE);
            }
        } finally {
            timer.cancel();
            queue.events.release();
        }
    }

    private boolean isIdle() {
        JobCounts c = queue.counts();
        return c.waiting() + c.delayed() + c.active() == 0;
    }
}
