package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Job;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A listener that records every event as text, in order, with the job snapshot it carried; engines' own tests
 * use it too, and may extend it.
 */
public class Events implements QueueListener<String> {
    /**
     * The events, such as {@code "added j1"}, {@code "retrying j1 boom PT1S"}, {@code "rescheduled j1 PT2S"},
     * {@code "drained"} or {@code "missed 12"}.
     */
    public final List<String> log = new CopyOnWriteArrayList<>();

    /** The job snapshot of each event ({@code null} for drained and missed), in the same order as {@link #log}. */
    public final List<Job<String>> snapshots = new CopyOnWriteArrayList<>();

    /** The thread each event was delivered on, in the same order as {@link #log}. */
    public final List<Thread> threads = new CopyOnWriteArrayList<>();

    /** A listener that has recorded nothing yet. */
    public Events() {}

    private void record(String event, Job<String> job) {
        log.add(event);
        snapshots.add(job);
        threads.add(Thread.currentThread());
    }

    @Override
    public void onAdded(Job<String> job) {
        record("added " + job.id(), job);
    }

    @Override
    public void onActive(Job<String> job) {
        record("active " + job.id(), job);
    }

    @Override
    public void onProgress(Job<String> job, int percent) {
        record("progress " + job.id() + " " + percent, job);
    }

    @Override
    public void onCompleted(Job<String> job) {
        record("completed " + job.id(), job);
    }

    @Override
    public void onRetrying(Job<String> job, Throwable error, Duration delay) {
        record("retrying " + job.id() + " " + error.getMessage() + " " + delay, job);
    }

    @Override
    public void onFailed(Job<String> job) {
        record("failed " + job.id(), job);
    }

    @Override
    public void onRateLimited(Job<String> job, Result.Scope scope, Duration retryAfter) {
        record("rate-limited " + job.id() + " " + scope + " " + retryAfter, job);
    }

    @Override
    public void onRescheduled(Job<String> job, Duration delay) {
        record("rescheduled " + job.id() + " " + delay, job);
    }

    @Override
    public void onDrained() {
        record("drained", null);
    }

    @Override
    public void onEventsMissed(long count) {
        record("missed " + count, null);
    }

    /**
     * The snapshot carried by the first event that is exactly {@code event}.
     *
     * @param event an event as logged, such as {@code "completed j1"}
     * @return the job snapshot of the first such event
     * @throws AssertionError if no event is {@code event}
     */
    public Job<String> snapshotOf(String event) {
        int index = log.indexOf(event);
        assertThat(index).as("event '%s' in %s", event, log).isNotNegative();
        return snapshots.get(index);
    }
}
