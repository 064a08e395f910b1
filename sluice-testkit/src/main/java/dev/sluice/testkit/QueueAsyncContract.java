package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueOptions.WhenFull;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code addAsync} and {@code addBulkAsync}: the caller's thread never blocks. With room the future is
 * complete when the call returns; a full queue that rejects fails it with {@link QueueFullException} at
 * once; a full queue that blocks completes it when room comes, or fails it when the wait, fixed at the call
 * on the engine clock, ends. Bad input throws at the call and adds nothing.
 */
public abstract class QueueAsyncContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueAsyncContract() {}

    private static <R> R result(CompletableFuture<R> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    @Test
    void addAsyncWithRoomIsCompleteWhenTheCallReturns() throws Exception {
        JobQueue<String> queue = newQueue();

        CompletableFuture<Added<String>> added = queue.addAsync("n", "p", withId("a"));

        if (differences().addsCompleteInTheCall()) {
            assertThat(added).isCompleted();
        }
        Added<String> answer = result(added);
        assertThat(answer.duplicate()).isFalse();
        assertThat(answer.job().id()).isEqualTo("a");
        assertThat(answer.job().payload()).isEqualTo("p");
        assertThat(answer.job().createdAt()).isEqualTo(START);
        assertThat(stateOf(queue, "a")).isEqualTo(JobState.WAITING);
    }

    @Test
    void manySingleAddsInFlightAtOnceAreEachAnsweredOnTheirOwn() throws Exception {
        // the Redis engine sends single adds that wait at once in one call: each must still be its own add
        JobQueue<String> queue = bounded(150, WhenFull.reject());
        for (int round = 0; round < 5; round++) {
            queue.drain(true);
            List<CompletableFuture<Added<String>>> adds = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                // ids 0-99 twice: the second of each pair is a duplicate of the first
                adds.add(queue.addAsync("n", "p" + i, withId("r" + round + "-" + (i % 100))));
            }
            List<String> addedIds = new ArrayList<>();
            int duplicates = 0;
            for (CompletableFuture<Added<String>> add : adds) {
                Added<String> answer = result(add);
                if (answer.duplicate()) {
                    duplicates++;
                } else {
                    addedIds.add(answer.job().id());
                }
            }
            assertThat(addedIds).as("round %d", round).hasSize(100).doesNotHaveDuplicates();
            assertThat(duplicates).isEqualTo(100);
            assertThat(queue.counts().waiting()).isEqualTo(100);
            List<CompletableFuture<Added<String>>> more = new ArrayList<>();
            for (int i = 0; i < 80; i++) {
                more.add(queue.addAsync("n", "q" + i));
            }
            int refused = 0;
            for (CompletableFuture<Added<String>> add : more) {
                try {
                    assertThat(result(add).duplicate()).isFalse();
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(QueueFullException.class);
                    refused++;
                }
            }
            assertThat(refused)
                    .as("beyond the bound of 150, each add refused alone")
                    .isEqualTo(30);
            assertThat(queue.counts().waiting()).isEqualTo(150);
        }
    }

    // Pins the bug where addAsync calls made one after another by one thread could be applied out of call order
    // on Redis (each started its own thread, and the threads reached the combined add call in either order).
    @Test
    void addAsyncCallsOfOneThreadAreAppliedInCallOrderWithAndWithoutAGroup() throws Exception {
        assertRoundsAppliedInCallOrder((queue, round, called, adds) -> {
            for (int i = 0; i < 30; i++) {
                String id = round + "-" + i;
                called.add(id);
                adds.add(queue.addAsync("n", "p", i % 3 == 0 ? inGroup(id, "g") : withId(id)));
            }
        });
    }

    // Pins the same bug for mixes: a sync add or addBulk after an addAsync that had not reached Redis yet went first.
    @Test
    void mixedAddsOfOneThreadAreAppliedInCallOrder() throws Exception {
        assertRoundsAppliedInCallOrder((queue, round, called, adds) -> {
            for (int i = 0; i < 24; i++) {
                String id = round + "-" + i;
                JobOptions options = i % 5 == 0 ? inGroup(id, "g") : withId(id);
                switch (i % 4) {
                    case 0 -> {
                        called.add(id);
                        queue.add("n", "p", options);
                    }
                    case 1 -> {
                        called.add(id);
                        called.add(id + "b");
                        queue.addBulk(
                                List.of(new NewJob<>("n", "p", options), new NewJob<>("n", "p", withId(id + "b"))));
                    }
                    case 2 -> {
                        called.add(id);
                        called.add(id + "b");
                        adds.add(queue.addBulkAsync(List.of(
                                new NewJob<>("n", "p", options), new NewJob<>("n", "p", inGroup(id + "b", "g")))));
                    }
                    default -> {
                        called.add(id);
                        adds.add(queue.addAsync("n", "p", options));
                    }
                }
                if (i % 4 == 3) {
                    called.add(id + "c");
                    adds.add(queue.addAsync("n", "p", withId(id + "c")));
                }
            }
        });
    }

    // Pins the bug where on Redis an addAsync refused by a full queue that rejects tried again alone, and could be
    // added then, after an add called later that went in the next combined call.
    @Test
    void addAsyncCallsOfOneThreadOnAFullQueueThatRejectsAreAppliedInCallOrderOrNotAtAll() throws Exception {
        JobQueue<String> queue = bounded(3, WhenFull.reject());
        List<String> added = Collections.synchronizedList(new ArrayList<>());
        queue.addListener(new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                added.add(job.id());
            }
        });
        AtomicBoolean producing = new AtomicBoolean(true);
        Async<Integer> remover = async(() -> {
            int removed = 0;
            while (producing.get()) {
                removed += queue.drain(true);
            }
            return removed;
        });
        Map<String, CompletableFuture<Added<String>>> adds = new LinkedHashMap<>();
        for (int i = 0; i < 2000; i++) {
            adds.put("j" + i, queue.addAsync("n", "p", withId("j" + i)));
        }
        CompletableFuture.allOf(adds.values().toArray(CompletableFuture[]::new))
                .handle((v, e) -> v)
                .get(30, TimeUnit.SECONDS);
        producing.set(false);
        remover.future().get(30, TimeUnit.SECONDS);
        List<String> applied = adds.entrySet().stream()
                .filter(e -> !e.getValue().isCompletedExceptionally())
                .map(Map.Entry::getKey)
                .toList();

        eventually().until(() -> added.size() >= applied.size());
        assertThat(added).containsExactlyElementsOf(applied);
    }

    /** One round of adds from the test's thread, without waiting for them. */
    private interface RoundOfAdds {
        /** Adds to {@code queue}, noting each job's id in {@code called} in call order and each future in {@code adds}. */
        void add(JobQueue<String> queue, int round, List<String> called, List<CompletableFuture<?>> adds);
    }

    /** 100 rounds of {@code adds} on a queue emptied before each, each checked as {@link #assertAppliedInCallOrder}. */
    private void assertRoundsAppliedInCallOrder(RoundOfAdds roundOfAdds) throws Exception {
        JobQueue<String> queue = newQueue();
        for (int round = 0; round < 100; round++) {
            queue.drain(true);
            List<CompletableFuture<?>> adds = new ArrayList<>();
            List<String> called = new ArrayList<>();
            roundOfAdds.add(queue, round, called, adds);
            assertAppliedInCallOrder(queue, adds, called, "round " + round);
        }
    }

    /** Waits for {@code adds}, then checks that the waiting jobs of each group are in the order of {@code called}. */
    private static void assertAppliedInCallOrder(
            JobQueue<String> queue, List<CompletableFuture<?>> adds, List<String> called, String what)
            throws Exception {
        CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        List<Job<String>> waiting = queue.jobs(JobState.WAITING, 0, called.size());
        assertThat(waiting).as(what).hasSize(called.size());
        for (String group : new String[] {null, "g"}) {
            List<String> inGroup = waiting.stream()
                    .filter(j -> Objects.equals(j.options().group(), group))
                    .map(Job::id)
                    .toList();
            List<String> expected = called.stream().filter(inGroup::contains).toList();
            assertThat(inGroup).as("%s, group %s", what, group).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void addAsyncWithTheDefaultOptionsTakesTheQueuesJobDefaults() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(4));

        Added<String> added = queue.addAsync("n", "p").join();

        assertThat(added.job().options().attempts()).isEqualTo(4);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void addAsyncOfAHeldIdIsADuplicate() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "first", withId("a"));

        Added<String> again = queue.addAsync("n", "second", withId("a")).join();

        assertThat(again.duplicate()).isTrue();
        assertThat(again.job().payload()).isEqualTo("first");
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void addAsyncToAFullQueueThatRejectsFailsAtOnceAndKeepsNothing() {
        JobQueue<String> queue = bounded(1, WhenFull.reject());
        queue.add("n", "p", withId("a"));

        CompletableFuture<Added<String>> added = queue.addAsync("n", "p", withId("b"));

        if (differences().addsCompleteInTheCall()) {
            assertThat(added).isCompletedExceptionally();
        }
        assertThatThrownBy(() -> added.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining(QUEUE);
        assertThat(queue.job("b")).isEmpty();
        assertThat(clock.nanos()).as("rejecting does not wait").isEqualTo(T0);
    }

    @Test
    void addAsyncToAFullQueueThatBlocksReturnsAtOnceAndCompletesWhenRoomComes() throws Exception {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofSeconds(10)));
        queue.add("n", "p", withId("a"));
        int tasksBefore = clock.pendingTasks();

        CompletableFuture<Added<String>> added = queue.addAsync("n", "second", withId("b"));

        assertThat(added)
                .as("the caller is not blocked: the add waits elsewhere")
                .isNotDone();
        // the add found the queue full and waits for room: before, on Redis, its first try could be stamped with
        // the engine's time (0 s) and reach Redis only after the removal below, adding the job at 0 s
        eventually().until(() -> clock.pendingTasks() > tasksBefore);
        assertThat(queue.job("b")).isEmpty();
        clock.advance(Duration.ofSeconds(3));
        assertThat(queue.remove("a")).isTrue();

        Added<String> answer = result(added);
        assertThat(answer.duplicate()).isFalse();
        assertThat(answer.job().payload()).isEqualTo("second");
        assertThat(answer.job().createdAt()).as("added when room came").isEqualTo(START.plusSeconds(3));
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void addAsyncThatWaitsGivesUpWhenTheWaitFixedAtTheCallEndsOnTheEngineClock() {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofSeconds(5)));
        queue.add("n", "p", withId("a"));
        int tasksBefore = clock.pendingTasks();

        CompletableFuture<Added<String>> added = queue.addAsync("n", "p", withId("b"));
        eventually().until(() -> clock.pendingTasks() > tasksBefore);

        clock.advanceNanos(5 * SECOND - 1);
        assertThat(added).as("1 ns before the wait ends").isNotDone();
        clock.advanceNanos(1);

        eventually().until(added::isDone);
        assertThatThrownBy(added::join).cause().isInstanceOf(QueueFullException.class);
        assertThat(queue.job("b")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void addAsyncWhoseWaitHasPassedBeforeItStartsWaitingFailsWithoutAddingLater() {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofSeconds(5)));
        queue.add("n", "p", withId("a"));

        CompletableFuture<Added<String>> added = queue.addAsync("n", "p", withId("b"));
        clock.advance(Duration.ofSeconds(6));

        eventually().until(added::isDone);
        assertThatThrownBy(added::join).cause().isInstanceOf(QueueFullException.class);
        queue.remove("a");
        assertThat(queue.job("b")).isEmpty();
    }

    @Test
    void addAsyncWithMalformedInputThrowsAtTheCallAndAddsNothing() {
        JobQueue<String> queue = newQueue();

        assertRejected(() -> queue.addAsync("", "p"), "name");
        assertRejected(() -> queue.addAsync("n", null), "encode");
        assertRejected(() -> queue.addAsync("n", "p", null), "options");
        assertRejected(
                () -> queue.addAsync(
                        "n",
                        "p",
                        JobOptions.builder()
                                .deduplicateFor(Duration.ofSeconds(1))
                                .build()),
                "jobId");

        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void addAsyncToAClosedEngineThrowsAtTheCallAsEveryUseDoes() {
        JobQueue<String> queue = newQueue();
        engine.close();

        assertThatThrownBy(() -> queue.addAsync("n", "p", withId("a")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> queue.addBulkAsync(List.of(new NewJob<>("n", "p", withId("b")))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void anAddAsyncWaitingForRoomFailsWhenTheEngineCloses() {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofHours(1)));
        queue.add("n", "p", withId("a"));
        CompletableFuture<Added<String>> added = queue.addAsync("n", "p", withId("b"));

        engine.close();

        eventually().until(added::isDone);
        assertThatThrownBy(added::join)
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString())
                .hasMessageContaining("closed");
    }

    @Test
    void addBulkAsyncWithRoomAddsAllAndReportsDuplicatesInOrder() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("held"));

        CompletableFuture<List<Added<String>>> added = queue.addBulkAsync(List.of(
                new NewJob<>("n", "p", withId("b1")),
                new NewJob<>("n", "p", withId("held")),
                new NewJob<>("n", "p", withId("b1"))));

        if (differences().addsCompleteInTheCall()) {
            assertThat(added).isCompleted();
        }
        assertThat(result(added)).extracting(Added::duplicate).containsExactly(false, true, true);
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 0, 0));
    }

    @Test
    void addBulkAsyncThatDoesNotFitAddsNoneAndFailsTheFuture() {
        JobQueue<String> queue = bounded(2, WhenFull.reject());
        queue.add("n", "p", withId("a"));

        CompletableFuture<List<Added<String>>> added =
                queue.addBulkAsync(List.of(new NewJob<>("n", "p", withId("b1")), new NewJob<>("n", "p", withId("b2"))));

        assertThatThrownBy(added::join).cause().isInstanceOf(QueueFullException.class);
        assertThat(queue.job("b1")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void addBulkAsyncThatBlocksAddsAllOnceAllFit() throws Exception {
        JobQueue<String> queue = bounded(3, WhenFull.block(Duration.ofSeconds(10)));
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));

        CompletableFuture<List<Added<String>>> added =
                queue.addBulkAsync(List.of(new NewJob<>("n", "p", withId("c")), new NewJob<>("n", "p", withId("d"))));
        assertThat(added).isNotDone();
        assertThat(queue.job("c"))
                .as("nothing of a bulk is added before all of it fits")
                .isEmpty();

        queue.remove("a");

        assertThat(result(added)).extracting(a -> a.job().id()).containsExactly("c", "d");
        assertThat(queue.counts()).isEqualTo(counts(3, 0, 0, 0, 0));
    }

    @Test
    void addBulkAsyncWithAMalformedJobThrowsAtTheCallNamingItsIndex() {
        JobQueue<String> queue = newQueue();
        List<NewJob<String>> withNull = new ArrayList<>();
        withNull.add(new NewJob<>("n", "p", withId("ok")));
        withNull.add(null);

        assertRejected(() -> queue.addBulkAsync(null), "jobs");
        assertRejected(() -> queue.addBulkAsync(withNull), "1");
        assertRejected(() -> queue.addBulkAsync(List.of(new NewJob<>("n", "p"), new NewJob<>("n", null))), "1");

        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void manyAsyncProducersOnABlockingQueueWithRealWorkersLoseNothingAndRunEachJobOnce() throws Exception {
        // 5 repetitions of 250 jobs: on the Redis engines of the test kit a repetition takes 1 to 3 s on a loaded
        // 2-core machine (the same adds in a process of their own take 40 ms), and the test has 30 s
        for (int rep = 0; rep < 5; rep++) {
            JobQueue<String> queue = engineOn(SluiceClock.system())
                    .queue(
                            "async-" + rep,
                            Codec.utf8(),
                            QueueOptions.builder()
                                    .maxQueued(8)
                                    .whenFull(WhenFull.block(Duration.ofMinutes(1)))
                                    .build());
            Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
            track(queue.worker(
                    ctx -> {
                        runs.computeIfAbsent(ctx.job().id(), k -> new AtomicInteger())
                                .incrementAndGet();
                        return Result.done();
                    },
                    WorkerOptions.concurrency(3)));
            List<CompletableFuture<?>> adds = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                adds.add(
                        i % 4 == 0
                                ? queue.addBulkAsync(List.of(
                                        new NewJob<>("n", "p", withId(i + "a")),
                                        new NewJob<>("n", "p", withId(i + "b"))))
                                : queue.addAsync("n", "p", withId(i + "a")));
            }

            CompletableFuture.allOf(adds.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(queue.awaitIdle(Duration.ofSeconds(30))).isTrue();

            assertThat(runs).as("rep %d", rep).hasSize(250);
            assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            assertThat(queue.stats().completed()).isEqualTo(250);
        }
    }
}
