package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * A Redis worker's slots claim with calls that may be on their way while {@code close} runs. Close completes only
 * once those calls are answered, so that no job added after it completed is taken by the closed worker; a job such
 * a call brings runs under the close deadline, or goes straight back to waiting once the deadline has passed.
 *
 * <p>The claim is held on its way by the script clock: a slot reads the time for its call after it decided to
 * claim, and the gate stops it there until the test lets it go.
 */
class RedisWorkerCloseTest {
    private final GatedClock clock = new GatedClock("sluice-gated-");
    private Sluice sluice;

    @BeforeEach
    void start() {
        sluice = RedisSluice.builder()
                .client(TestEngines.client())
                .keyPrefix(TestEngines.newPrefix())
                .commandTimeout(Duration.ofSeconds(30))
                .scriptClock(clock)
                .build();
    }

    @AfterEach
    void stop() {
        clock.open();
        sluice.close();
    }

    @Test
    void closeWaitsForAClaimOnItsWaySoThatLaterJobsWaitForAnotherWorker() throws Exception {
        JobQueue<String> queue = sluice.queue("gated", Codec.utf8());
        clock.close();
        Worker<String> worker = queue.worker(ctx -> Result.done(), WorkerOptions.concurrency(1));
        clock.awaitHeld();

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(Duration.ZERO);
        assertThat(closing).isNotDone();
        clock.open();
        assertThat(closing.get(10, TimeUnit.SECONDS)).isEqualTo(new Worker.CloseReport(0, 0));

        queue.add("n", "p", withId("after"));
        assertThat(manualWorker(queue).runDue()).isEqualTo(1);
        assertThat(queue.job("after").orElseThrow().attempts()).hasSize(1);
    }

    @Test
    void aJobAClaimOnItsWayBringsAfterTheDeadlineGoesBackUnrun() throws Exception {
        JobQueue<String> queue = sluice.queue("gated", Codec.utf8());
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = heldOnItsFirstClaim(queue, ran);

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(Duration.ZERO);
        queue.add("n", "p", withId("during"));
        clock.open();

        assertThat(closing.get(10, TimeUnit.SECONDS)).isEqualTo(new Worker.CloseReport(0, 1));
        assertThat(ran).isEmpty();
        Job<String> returned = queue.job("during").orElseThrow();
        assertThat(returned.state()).isEqualTo(JobState.WAITING);
        assertThat(returned.attemptsMade()).isZero();
        assertThat(manualWorker(queue).runDue()).isEqualTo(1);
    }

    @Test
    void aJobAClaimOnItsWayBringsBeforeTheDeadlineRuns() throws Exception {
        JobQueue<String> queue = sluice.queue("gated", Codec.utf8());
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = heldOnItsFirstClaim(queue, ran);

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(Duration.ofMinutes(1));
        queue.add("n", "p", withId("during"));
        clock.open();

        assertThat(closing.get(10, TimeUnit.SECONDS)).isEqualTo(new Worker.CloseReport(1, 0));
        assertThat(ran).containsExactly("during");
        assertThat(queue.job("during").orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    @RepeatedTest(100)
    void aJobAddedAfterCloseReturnedWaitsForAnotherWorker() {
        clock.open();
        JobQueue<String> queue = sluice.queue("closing", Codec.utf8());
        Worker<String> worker = queue.worker(ctx -> Result.done(), WorkerOptions.concurrency(8));
        worker.close(Duration.ZERO);
        queue.add("n", "p", withId("after"));
        assertThat(manualWorker(queue).runDue()).isEqualTo(1);
        assertThat(queue.job("after").orElseThrow().attempts()).hasSize(1);
    }

    /** A started worker of one slot, recording the jobs it runs, whose first claim the gate holds on its way. */
    private Worker<String> heldOnItsFirstClaim(JobQueue<String> queue, List<String> ran) throws InterruptedException {
        clock.close();
        Worker<String> worker = queue.worker(
                ctx -> {
                    ran.add(ctx.job().id());
                    return Result.done();
                },
                WorkerOptions.concurrency(1));
        clock.awaitHeld();
        return worker;
    }

    private static Worker<String> manualWorker(JobQueue<String> queue) {
        return queue.worker(
                ctx -> Result.done(),
                WorkerOptions.builder().concurrency(1).autoStart(false).build());
    }

    private static JobOptions withId(String id) {
        return JobOptions.builder().jobId(id).build();
    }

    /** Virtual time whose reads, while the gate is closed, hold the threads whose names start with a prefix. */
    private static final class GatedClock implements SluiceClock {
        private final ManualClock time = new ManualClock();
        private final String gatedThreads;
        private volatile CountDownLatch gate = new CountDownLatch(0);
        private final CountDownLatch held = new CountDownLatch(1);

        GatedClock(String gatedThreads) {
            this.gatedThreads = gatedThreads;
        }

        void close() {
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        void awaitHeld() throws InterruptedException {
            assertThat(held.await(10, TimeUnit.SECONDS))
                    .as("a slot reads the time for its claim")
                    .isTrue();
        }

        @Override
        public long nanos() {
            CountDownLatch current = gate;
            if (current.getCount() > 0 && Thread.currentThread().getName().startsWith(gatedThreads)) {
                held.countDown();
                boolean interrupted = false;
                while (true) {
                    try {
                        current.await();
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            return time.nanos();
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            time.sleep(nanos);
        }

        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            return time.schedule(delayNanos, task);
        }
    }
}
