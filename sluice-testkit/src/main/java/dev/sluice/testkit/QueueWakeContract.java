package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.FixedWindow;
import dev.sluice.queue.Added;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueOptions.WhenFull;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/**
 * Started workers are woken, never left asleep: a worker whose every slot is parked waiting for work takes a job
 * promptly when work appears by any road (the queue resumed, a limit raised at run time, a bulk add, a retry, a
 * job whose timeout freed a place), and a producer blocked on a full queue or group is let in when a limit change
 * makes room. Each test first parks every slot (each has run a job and waits), so that only a wake-up by the
 * queue can make it go on; a missing wake-up fails as a time-out of a few seconds.
 */
public abstract class QueueWakeContract extends QueueContractSupport {
    private static final String WARM = "warm-";

    /** The threads the slots of this test's worker ran on. */

    /** The worker {@link #parkedWorker} started last. */
    private Worker<String> lastWorker;

    /** For subclasses, one per engine. */
    protected QueueWakeContract() {}

    /** A wait bounded to a few seconds of real time: what must happen promptly, or not at all. */
    private static ConditionFactory promptly() {
        return Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1));
    }

    /**
     * A started worker of {@code slots} slots running {@code work}, each slot having run one warm-up job (all at
     * once, so that every slot runs one), then parked: the warm-up jobs are completed and every slot waits.
     */
    private void parkedWorker(JobQueue<String> queue, Processor<String> work, int slots) {
        CountDownLatch allIn = new CountDownLatch(slots);
        lastWorker = startedWorker(
                queue,
                ctx -> {
                    slotThreads.add(Thread.currentThread());
                    if (ctx.job().id().startsWith(WARM)) {
                        allIn.countDown();
                        assertThat(allIn.await(10, TimeUnit.SECONDS)).isTrue();
                        return Result.done();
                    }
                    return work.process(ctx);
                },
                slots);
        for (int i = 0; i < slots; i++) {
            queue.add("warm", "p", withId(WARM + i));
        }
        eventually().until(() -> queue.counts().completed() == slots && slotThreads.size() == slots);
        awaitSlotsWaiting();
    }

    /** Waits until job {@code started} is inside {@code blocker} and every slot is parked, job {@code waiting} left. */
    private void awaitStartedAndParked(JobQueue<String> queue, Blocker blocker, String started, String waiting) {
        promptly().until(() -> blocker.entered.contains(started));
        awaitSlotsWaiting();
        assertThat(stateOf(queue, waiting)).isEqualTo(JobState.WAITING);
    }

    private static JobOptions inGroupA(String id) {
        return inGroup(id, "a");
    }

    @Test
    void resumingThePausedQueueWakesAParkedWorker() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        parkedWorker(queue, blocker, 1);
        queue.pause();
        queue.add("n", "p", withId("j"));
        awaitSlotsWaiting();
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);

        queue.resume();

        promptly().until(() -> blocker.entered.contains("j"));
        assertThat(job(queue, "j").startedAt()).isEqualTo(START);
    }

    @Test
    void raisingTheQueueRateWithAPolicyOfTheSameKindWakesAParkedWorker() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .rate(FixedWindow.of(1, Duration.ofHours(1)))
                .build());
        parkedWorker(queue, completing(), 1); // the warm-up job used the hour's only permit
        queue.add("n", "p", withId("j"));
        awaitSlotsWaiting();
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);

        queue.setRate(FixedWindow.of(2, Duration.ofHours(1)));

        promptly().until(() -> stateOf(queue, "j") == JobState.COMPLETED);
        queue.add("n", "p", withId("k"));
        awaitSlotsWaiting();
        assertThat(stateOf(queue, "k"))
                .as("the new window keeps what the old one used: its 2 permits are taken")
                .isEqualTo(JobState.WAITING);
    }

    @Test
    void raisingAGroupsLimitsByEveryRoadWakesAParkedWorker() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        parkedWorker(queue, blocker, 4);
        queue.setGroupDefaults(GroupLimits.builder().concurrency(3).build());
        queue.setGroupLimits("a", GroupLimits.builder().concurrency(1).build());
        for (String id : List.of("a1", "a2", "a3", "a4")) {
            queue.add("n", "p", inGroupA(id));
        }
        awaitStartedAndParked(queue, blocker, "a1", "a2");

        queue.setGroupLimits("a", GroupLimits.builder().concurrency(2).build());
        awaitStartedAndParked(queue, blocker, "a2", "a3");

        queue.clearGroupLimits("a");
        awaitStartedAndParked(queue, blocker, "a3", "a4");

        queue.setGroupDefaults(GroupLimits.builder().concurrency(4).build());
        promptly().until(() -> blocker.entered.contains("a4"));
    }

    @Test
    void aBulkAddWakesEveryParkedSlot() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        parkedWorker(queue, blocker, 3);

        queue.addBulk(List.of(
                new NewJob<>("n", "p", withId("b0")),
                new NewJob<>("n", "p", withId("b1")),
                new NewJob<>("n", "p", withId("b2"))));

        promptly().until(() -> blocker.entered.size() == 3);
        assertThat(blocker.entered).containsExactlyInAnyOrder("b0", "b1", "b2");
    }

    @Test
    void retryingAFailedJobWakesAParkedWorker() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1));
        AtomicBoolean failedOnce = new AtomicBoolean();
        parkedWorker(queue, failOnceEach(failedOnce), 1);
        queue.add("n", "p", withId("f"));
        promptly().until(() -> stateOf(queue, "f") == JobState.FAILED);
        awaitSlotsWaiting();

        queue.retry("f", JobState.FAILED);

        promptly().until(() -> stateOf(queue, "f") == JobState.COMPLETED);
    }

    @Test
    void retryingEveryFailedJobWakesEveryParkedSlot() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1));
        Blocker blocker = blocker();
        Set<String> failed = ConcurrentHashMap.newKeySet();
        parkedWorker(
                queue,
                ctx -> {
                    if (failed.add(ctx.job().id())) {
                        throw new Boom("first attempt");
                    }
                    return blocker.process(ctx);
                },
                2);
        queue.add("n", "p", withId("f1"));
        queue.add("n", "p", withId("f2"));
        promptly().until(() -> queue.counts().failed() == 2);
        awaitSlotsWaiting();

        assertThat(queue.retryFailed()).isEqualTo(2);

        promptly().until(() -> blocker.entered.size() == 2);
        assertThat(blocker.entered).containsExactlyInAnyOrder("f1", "f2");
    }

    /** Throws on the first attempt only, then completes. */
    private static Processor<String> failOnceEach(AtomicBoolean failedOnce) {
        return ctx -> {
            if (failedOnce.compareAndSet(false, true)) {
                throw new Boom("first attempt");
            }
            return Result.done();
        };
    }

    @Test
    void aJobThatTimesOutInAStuckProcessorLetsAnotherSlotTakeTheNextJob() {
        JobQueue<String> queue = newQueue();
        CountDownLatch unstick = new CountDownLatch(1);
        parkedWorker(
                queue,
                ctx -> {
                    if (ctx.job().id().equals("stuck")) {
                        awaitIgnoringInterrupts(unstick);
                    }
                    return Result.done();
                },
                2);
        queue.setConcurrency(1);
        queue.add(
                "n", "p", id("stuck").timeout(Duration.ofSeconds(1)).attempts(1).build());
        queue.add("n", "p", withId("next"));
        promptly().until(() -> stateOf(queue, "stuck") == JobState.ACTIVE);
        awaitSlotsWaiting();
        assertThat(stateOf(queue, "next")).isEqualTo(JobState.WAITING);

        try {
            clock.advance(Duration.ofSeconds(1));

            assertThat(stateOf(queue, "stuck")).isEqualTo(JobState.FAILED);
            promptly().until(() -> stateOf(queue, "next") == JobState.COMPLETED);
            assertThat(job(queue, "next").startedAt()).isEqualTo(atMillis(1_000));
        } finally {
            unstick.countDown();
        }
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                if (latch.await(10, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException ignored) {
                // a stuck processor: the timeout's interrupt does not end it
            }
        }
    }

    // ------------------------------------------------------------------------------------- blocked producers

    /** A queue whose group "a" holds one waiting job at most, and whose adds wait an hour for room. */
    private JobQueue<String> groupOfOneBlocking() {
        return newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().maxQueued(1).build())
                .whenFull(WhenFull.block(Duration.ofHours(1)))
                .build());
    }

    /** Adds a1, then a2 from a producer that blocks; {@code change} must let it in at once. */
    private void producerBlockedOnGroupALetInBy(JobQueue<String> queue, Consumer<JobQueue<String>> change) {
        queue.add("n", "p", inGroupA("a1"));
        Async<Added<String>> producer = async(() -> queue.add("n", "p", inGroupA("a2")));
        eventually().until(producer::isParked);
        assertThat(producer.future()).isNotDone();

        change.accept(queue);

        promptly().until(() -> producer.future().isDone());
        assertThat(settled(producer.future()).job().id()).isEqualTo("a2");
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 0, 0));
        assertThat(clock.nanos()).isEqualTo(T0);
    }

    @Test
    void raisingTheGroupDefaultsLetsABlockedProducerIn() {
        producerBlockedOnGroupALetInBy(
                groupOfOneBlocking(),
                q -> q.setGroupDefaults(GroupLimits.builder().maxQueued(2).build()));
    }

    @Test
    void raisingAGroupsOwnBoundLetsABlockedProducerIn() {
        producerBlockedOnGroupALetInBy(
                groupOfOneBlocking(),
                q -> q.setGroupLimits("a", GroupLimits.builder().maxQueued(2).build()));
    }

    @Test
    void clearingAGroupsOwnBoundLetsABlockedProducerIn() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .whenFull(WhenFull.block(Duration.ofHours(1)))
                .build());
        queue.setGroupLimits("a", GroupLimits.builder().maxQueued(1).build());
        producerBlockedOnGroupALetInBy(queue, q -> q.clearGroupLimits("a"));
    }

    @Test
    void drainingLetsABlockedProducerIn() {
        JobQueue<String> queue = groupOfOneBlocking();
        queue.add("n", "p", inGroupA("a1"));
        Async<Added<String>> producer = async(() -> queue.add("n", "p", inGroupA("a2")));
        eventually().until(producer::isParked);

        assertThat(queue.drain(false)).isEqualTo(1);

        promptly().until(() -> producer.future().isDone());
        assertThat(settled(producer.future()).job().id()).isEqualTo("a2");
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    // ------------------------------------------------------------------------------------- closing

    /** A parked worker of one slot whose job "stuck" ignores interrupts until {@code unstick}; stuck is running. */
    private Worker<String> workerStuckIn(JobQueue<String> queue, CountDownLatch unstick, JobOptions.Builder stuck) {
        parkedWorker(
                queue,
                ctx -> {
                    awaitIgnoringInterrupts(unstick);
                    return Result.done();
                },
                1);
        queue.add("n", "p", stuck.jobId("stuck").build());
        promptly().until(() -> stateOf(queue, "stuck") == JobState.ACTIVE);
        awaitSlotsWaiting();
        return lastWorker;
    }

    @Test
    void aCloseDeadlineEndsTheCloseThoughTheProcessorIgnoresTheInterrupt() {
        JobQueue<String> queue = newQueue();
        CountDownLatch unstick = new CountDownLatch(1);
        try {
            Worker<String> worker = workerStuckIn(queue, unstick, JobOptions.builder());
            CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(Duration.ofSeconds(1));

            clock.advance(Duration.ofSeconds(1));

            promptly().until(closing::isDone);
            assertThat(closing.join()).isEqualTo(new Worker.CloseReport(0, 1));
            assertThat(stateOf(queue, "stuck")).isEqualTo(JobState.WAITING);
        } finally {
            unstick.countDown();
        }
    }

    @Test
    void aJobThatTimedOutIsNotReturnedAgainWhenItsWorkerClosesAtTheDeadline() {
        JobQueue<String> queue = newQueue();
        CountDownLatch unstick = new CountDownLatch(1);
        try {
            Worker<String> worker = workerStuckIn(
                    queue,
                    unstick,
                    JobOptions.builder().timeout(Duration.ofSeconds(1)).attempts(1));
            clock.advance(Duration.ofSeconds(1));
            assertThat(stateOf(queue, "stuck")).isEqualTo(JobState.FAILED);
            CompletableFuture<Worker.CloseReport> closing = worker.closeAsync(Duration.ofSeconds(1));

            clock.advance(Duration.ofSeconds(1));

            promptly().until(closing::isDone);
            assertThat(closing.join())
                    .as("the timeout already ended the attempt: nothing is returned")
                    .isEqualTo(new Worker.CloseReport(0, 0));
            assertThat(stateOf(queue, "stuck")).isEqualTo(JobState.FAILED);
        } finally {
            unstick.countDown();
        }
    }

    @Test
    void aParkedSlotsJobIsToldActiveWhileTheProcessorRuns() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        List<String> toldAtEntry = new CopyOnWriteArrayList<>();
        parkedWorker(
                queue,
                ctx -> {
                    told(queue);
                    toldAtEntry.addAll(events.log);
                    return Result.done();
                },
                1);
        told(queue);
        events.log.clear();

        queue.add("n", "p", withId("j"));

        promptly().until(() -> stateOf(queue, "j") == JobState.COMPLETED);
        assertThat(toldAtEntry).containsExactly("added j", "active j");
    }
}
