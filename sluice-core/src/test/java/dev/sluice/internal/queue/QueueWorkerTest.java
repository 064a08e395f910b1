package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.SluiceException;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The worker's own protocol, over a store whose calls a test holds and releases: what a close waits for, what it
 * gives back, and what a failed call keeps. The contract suites hold both engines' stores to the rest.
 */
class QueueWorkerTest {
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    /** A job of the {@link Store}: owned by the attempt until its ending or the deadline's give-back is recorded. */
    static final class Claim implements ClaimedAttempt {
        final String id;
        private boolean settled;

        Claim(String id) {
            this.id = id;
        }

        /** Whether this call settles the attempt (its ending or its give-back), the first to do so. */
        synchronized boolean settle() {
            boolean first = !settled;
            settled = true;
            return first;
        }

        @Override
        public String jobId() {
            return id;
        }

        @Override
        public long token() {
            return 1;
        }

        @Override
        public int attempt() {
            return 1;
        }

        @Override
        public JobOptions options() {
            return JobOptions.defaults();
        }
    }

    /** A store of jobs to claim, whose claims wait for {@link #claimsOpen} and whose endings may fail once. */
    static final class Store implements WorkerStore<String, Claim> {
        final ManualClock clock = new ManualClock();
        /** The queue's name, clock and open state only: the jobs are the store's. */
        final InMemoryQueue<String> queue =
                new InMemoryQueue<>("engine", "q", Codec.utf8(), QueueOptions.defaults(), clock);

        final LinkedBlockingQueue<Claim> waiting = new LinkedBlockingQueue<>();
        final List<String> recorded = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch claimAsked = new CountDownLatch(1);
        volatile CountDownLatch claimsOpen = new CountDownLatch(0);
        final AtomicInteger endingFailures = new AtomicInteger();
        /** What the worker told the store of its life, besides the slots' calls. */
        final List<String> told = Collections.synchronizedList(new ArrayList<>());

        QueueWorker<String, Claim> worker;

        QueueWorker<String, Claim> worker(Processor<String> processor, int concurrency) {
            return new QueueWorker<>(processor, WorkerOptions.concurrency(concurrency), w -> {
                worker = w;
                return this;
            });
        }

        @Override
        public SlotCalls<Claim> slotCalls(QueueWorker<String, Claim>.Slot slot) {
            return new SlotCalls<>() {
                @Override
                public Claim endAndClaim(Claim finished, AttemptEnd ending, boolean claim) {
                    if (ending != null) {
                        if (endingFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                            throw new SluiceException("the store cannot be reached");
                        }
                        boolean owned = finished.settle();
                        recorded.add((owned ? "ended " : "refused ") + finished.id);
                        worker.endedBySlot(slot, finished);
                    }
                    if (!claim) {
                        return null;
                    }
                    claimAsked.countDown();
                    awaitUninterruptibly(claimsOpen);
                    Claim next = waiting.poll();
                    if (next != null) {
                        worker.took(slot, next);
                    }
                    return next;
                }

                @Override
                public Claim awaitWork(boolean afterFailure) {
                    // as an engine's idle slot: until work comes (never, here) or the closing worker interrupts
                    try {
                        Thread.sleep(Duration.ofMinutes(1));
                    } catch (InterruptedException e) {
                        // closing: the loop decides
                    }
                    return null;
                }

                @Override
                public void giveBack(Claim job) {
                    if (job.settle()) {
                        recorded.add("returned " + job.id);
                        worker.returned(slot, job);
                    }
                }

                @Override
                public boolean resendAfterPause(Claim finished) {
                    return true;
                }

                @Override
                public void exit() {
                    told.add("exit");
                }
            };
        }

        @Override
        public JobContext<String> context(Claim job) {
            return new JobContext<>() {
                @Override
                public Job<String> job() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public String payload() {
                    return job.id;
                }

                @Override
                public int attempt() {
                    return job.attempt();
                }

                @Override
                public void progress(int percent) {}

                @Override
                public boolean isCancelled() {
                    return false;
                }
            };
        }

        @Override
        public QueueFront<String> queue() {
            return queue;
        }

        @Override
        public void started() {
            told.add("started");
        }

        @Override
        public void stopped() {
            told.add("stopped");
        }

        @Override
        public void wakeIdle() {
            told.add("wakeIdle");
        }

        @Override
        public void forget() {
            told.add("forget");
        }

        @Override
        public void failed(RuntimeException e) {
            told.add("failed");
        }

        @Override
        public void succeeded() {
            told.add("succeeded");
        }
    }

    /** Waits as a call on its way does: a closing worker's interrupt does not end it. */
    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static Processor<String> recordingInto(List<String> ran) {
        return ctx -> {
            ran.add(ctx.payload());
            return Result.done();
        };
    }

    private static Worker.CloseReport closed(CompletableFuture<Worker.CloseReport> closing) throws Exception {
        return closing.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aStartedWorkerTellsItsStoreItsLifeAndClosesItsIdleSlots() throws Exception {
        Store store = new Store();
        QueueWorker<String, Claim> worker = store.worker(recordingInto(new ArrayList<>()), 2);
        assertThat(worker.claiming()).isFalse();
        assertThat(worker.running()).isEmpty();

        worker.start();
        assertThat(worker.claiming()).isTrue();
        await().until(() -> store.told.stream().filter("succeeded"::equals).count() == 2);

        // the idle slots wait until interrupted: the close must interrupt them to complete
        assertThat(closed(worker.closeAsync(DEADLINE))).isEqualTo(new Worker.CloseReport(0, 0));
        assertThat(worker.claiming()).isFalse();
        await().untilAsserted(
                        () -> assertThat(store.told).filteredOn("exit"::equals).hasSize(2));
        assertThat(store.told)
                .containsSubsequence("started", "stopped")
                .containsOnlyOnce("started", "wakeIdle", "stopped", "forget")
                .doesNotContain("failed");
    }

    @Test
    void aClaimOnItsWayWhenTheCloseBeginsHoldsItOpenAndItsJobRuns() throws Exception {
        Store store = new Store();
        store.claimsOpen = new CountDownLatch(1);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        QueueWorker<String, Claim> worker = store.worker(recordingInto(ran), 1);
        worker.start();
        store.claimAsked.await();

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(DEADLINE);
        store.waiting.add(new Claim("a"));
        Thread.sleep(20);
        assertThat(closing).isNotDone();
        store.claimsOpen.countDown();

        assertThat(closed(closing)).isEqualTo(new Worker.CloseReport(1, 0));
        assertThat(ran).containsExactly("a");
        assertThat(store.recorded).containsExactly("ended a");
    }

    @Test
    void aJobAClaimBringsAfterTheDeadlineGoesBackUnrun() throws Exception {
        Store store = new Store();
        store.claimsOpen = new CountDownLatch(1);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        QueueWorker<String, Claim> worker = store.worker(recordingInto(ran), 1);
        worker.start();
        store.claimAsked.await();

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(DEADLINE);
        store.clock.advance(DEADLINE);
        store.waiting.add(new Claim("a"));
        assertThat(closing).isNotDone();
        store.claimsOpen.countDown();

        assertThat(closed(closing)).isEqualTo(new Worker.CloseReport(0, 1));
        assertThat(ran).isEmpty();
        assertThat(store.recorded).containsExactly("returned a");
    }

    @Test
    void aCloseDuringRunDueWaitsForItsClaimOnItsWayAndGivesBackWhatItBrings() throws Exception {
        Store store = new Store();
        store.claimsOpen = new CountDownLatch(1);
        store.waiting.add(new Claim("a"));
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        QueueWorker<String, Claim> worker = store.worker(recordingInto(ran), 1);
        CompletableFuture<Integer> running = CompletableFuture.supplyAsync(worker::runDue);
        store.claimAsked.await();

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(DEADLINE);
        Thread.sleep(20);
        assertThat(closing).isNotDone();
        store.claimsOpen.countDown();

        assertThat(closed(closing)).isEqualTo(new Worker.CloseReport(0, 1));
        assertThat(running.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(ran).isEmpty();
        assertThat(store.recorded).containsExactly("returned a");
    }

    @Test
    void aCloseDuringRunDueCompletesOnceItsClaimOnItsWayBringsNothing() throws Exception {
        Store store = new Store();
        store.claimsOpen = new CountDownLatch(1);
        QueueWorker<String, Claim> worker = store.worker(recordingInto(new ArrayList<>()), 1);
        CompletableFuture<Integer> running = CompletableFuture.supplyAsync(worker::runDue);
        store.claimAsked.await();

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(DEADLINE);
        Thread.sleep(20);
        assertThat(closing).isNotDone();
        store.claimsOpen.countDown();

        assertThat(closed(closing)).isEqualTo(new Worker.CloseReport(0, 0));
        assertThat(running.get(10, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void theDeadlineGivesBackARunningJobInterruptsItAndCountsItOnce() throws Exception {
        Store store = new Store();
        store.waiting.add(new Claim("a"));
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        QueueWorker<String, Claim> worker = store.worker(
                ctx -> {
                    running.countDown();
                    try {
                        Thread.sleep(60_000);
                        interrupted.complete(false);
                    } catch (InterruptedException e) {
                        interrupted.complete(true);
                    }
                    return Result.done();
                },
                1);
        worker.start();
        running.await();
        assertThat(worker.running()).extracting(c -> c.id).containsExactly("a");

        CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(DEADLINE);
        Thread.sleep(20);
        assertThat(closing).isNotDone();
        assertThat(interrupted)
                .as("a running job is interrupted at the deadline only")
                .isNotDone();
        assertThat(worker.active()).isEqualTo(1);
        store.clock.advance(DEADLINE);

        assertThat(closed(closing)).isEqualTo(new Worker.CloseReport(0, 1));
        assertThat(interrupted.get()).isTrue();
        await().untilAsserted(() -> assertThat(store.recorded).containsExactly("returned a", "refused a"));
        assertThat(worker.active()).isZero();
        assertThat(worker.running()).isEmpty();
    }

    @Test
    void anEndingWhoseCallFailedIsSentAgainAndTheStoreHearsTheOutageEnd() throws Exception {
        Store store = new Store();
        store.endingFailures.set(1);
        store.waiting.add(new Claim("a"));
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        QueueWorker<String, Claim> worker = store.worker(recordingInto(ran), 1);
        worker.start();

        await().untilAsserted(() -> assertThat(store.recorded).containsExactly("ended a"));
        assertThat(ran).containsExactly("a");
        await().untilAsserted(() -> assertThat(store.told).containsSubsequence("failed", "succeeded"));
        assertThat(store.told).containsOnlyOnce("failed");
        assertThat(worker.close(DEADLINE)).isEqualTo(new Worker.CloseReport(0, 0));
    }

    @Test
    void runDueRunsWhatMayStartOnTheCallersThreadAndAStartedWorkerRefusesIt() {
        Store store = new Store();
        store.waiting.add(new Claim("a"));
        store.waiting.add(new Claim("b"));
        List<String> threads = Collections.synchronizedList(new ArrayList<>());
        QueueWorker<String, Claim> worker = store.worker(
                ctx -> {
                    threads.add(ctx.payload() + "@" + Thread.currentThread().getName());
                    return Result.done();
                },
                1);

        assertThat(worker.runDue()).isEqualTo(2);
        String caller = Thread.currentThread().getName();
        assertThat(threads).containsExactly("a@" + caller, "b@" + caller);
        assertThat(store.recorded).containsExactly("ended a", "ended b");
        assertThat(worker.active()).isZero();
        assertThat(store.told).containsExactly("started", "stopped");

        worker.start();
        assertThatThrownBy(worker::runDue)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has not started");
        worker.close(Duration.ZERO);
    }
}
