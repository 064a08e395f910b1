package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Leases on a Redis queue, with two engines on the same keys standing for two processes, each on its own manual
 * clock: a process whose clock does not move stands for one that froze or died (it renews nothing).
 */
class RedisLeaseTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final String prefix = TestEngines.newPrefix();
    private final ManualClock clockA = new ManualClock(START);
    private final ManualClock clockB = new ManualClock(START);

    private final CountDownLatch go = new CountDownLatch(1);

    /**
     * Adds job {@code j} to {@code queue} and runs a manual worker with {@code options} on a thread of its own until
     * its processor has started; the processor returns {@code Result.done("from a")} once {@link #go} opens.
     */
    private Thread startFrozen(JobQueue<String> queue, WorkerOptions options) throws InterruptedException {
        queue.add("n", "p", JobOptions.builder().jobId("j").build());
        CountDownLatch started = new CountDownLatch(1);
        Worker<String> frozen = queue.worker(
                ctx -> {
                    started.countDown();
                    go.await();
                    return Result.done("from a");
                },
                options);
        Thread thread = Thread.ofVirtual().start(frozen::runDue);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        return thread;
    }

    @Test
    void aJobWhoseLeaseRanOutGoesToAnotherWorkerAndTheFirstCannotCompleteIt() throws Exception {
        try (Sluice a = TestEngines.on(clockA, prefix);
                Sluice b = TestEngines.on(clockB, prefix)) {
            JobQueue<String> queueB = b.queue("jobs", Codec.utf8());
            Thread thread = startFrozen(
                    a.queue("jobs", Codec.utf8()),
                    WorkerOptions.builder().autoStart(false).leaseTime(LEASE).build());

            clockB.advance(LEASE.minusNanos(1_000));
            Worker<String> other = queueB.worker(
                    ctx -> {
                        // the first worker comes back while this one runs the job: its ending must be refused
                        go.countDown();
                        thread.join(10_000);
                        return Result.done("from b");
                    },
                    WorkerOptions.manual());
            assertThat(other.runDue())
                    .as("the lease still holds 1 µs before it ends")
                    .isZero();
            clockB.advance(Duration.ofNanos(1_000));
            assertThat(other.runDue()).as("at its end it no longer holds").isEqualTo(1);

            assertThat(thread.isAlive()).isFalse();
            Job<String> job = queueB.job("j").orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.COMPLETED);
            assertThat(job.result())
                    .as("the first worker's late completion was refused")
                    .isEqualTo("from b");
            assertThat(job.attemptsMade()).isEqualTo(1);
            assertThat(job.attempts())
                    .extracting(Job.Attempt::outcome)
                    .containsExactly(Outcome.INTERRUPTED, Outcome.COMPLETED);
            assertThat(job.attempts().get(0).error()).contains("lease");
            assertThat(queueB.counts()).isEqualTo(new JobCounts(0, 0, 0, 1, 0));
            assertThat(queueB.stats().completed()).isEqualTo(1);
        }
    }

    @Test
    void aJobFailsOnceItStalledMoreThanMaxStalls() throws Exception {
        try (Sluice a = TestEngines.on(clockA, prefix);
                Sluice b = TestEngines.on(clockB, prefix)) {
            JobQueue<String> queueB = b.queue("jobs", Codec.utf8());
            Thread thread = startFrozen(
                    a.queue("jobs", Codec.utf8()),
                    WorkerOptions.builder()
                            .autoStart(false)
                            .leaseTime(LEASE)
                            .maxStalls(0)
                            .build());

            clockB.advance(LEASE);
            AtomicInteger ran = new AtomicInteger();
            Worker<String> other = queueB.worker(
                    ctx -> {
                        ran.incrementAndGet();
                        return Result.done();
                    },
                    WorkerOptions.manual());
            assertThat(other.runDue()).isZero();

            go.countDown();
            thread.join(10_000);
            Job<String> job = queueB.job("j").orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.FAILED);
            assertThat(job.failure().reason()).contains("stalled 1 times, more than maxStalls 0");
            assertThat(ran).hasValue(0);
            assertThat(queueB.counts()).isEqualTo(new JobCounts(0, 0, 0, 0, 1));
        }
    }

    @Test
    void aWorkerRenewsTheLeaseOfAJobThatRunsLongerThanIt() {
        try (Sluice a = TestEngines.on(clockA, prefix)) {
            JobQueue<String> queue = a.queue("jobs", Codec.utf8());
            queue.add("n", "p", JobOptions.builder().jobId("j").build());
            Worker<String> worker = queue.worker(
                    ctx -> {
                        for (int i = 0; i < 12; i++) {
                            clockA.advance(Duration.ofSeconds(10)); // 2 minutes, 4 lease times
                        }
                        return Result.done();
                    },
                    WorkerOptions.builder().autoStart(false).leaseTime(LEASE).build());

            assertThat(worker.runDue()).isEqualTo(1);

            Job<String> job = queue.job("j").orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.COMPLETED);
            assertThat(job.attempts()).extracting(Job.Attempt::outcome).containsExactly(Outcome.COMPLETED);
        }
    }
}
