package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Added;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueOptions.WhenFull;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bounded queue: {@code maxQueued} bounds waiting and delayed jobs; a full queue rejects an add at once
 * (nothing of it kept) or blocks the producer on the engine clock until there is room or the time is up.
 */
public abstract class QueueMaxQueuedContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueMaxQueuedContract() {}

    @Test
    void fullQueueRejectsAnAddAndKeepsNothingOfIt() {
        JobQueue<String> queue = bounded(3, WhenFull.reject());
        Events events = new Events();
        queue.add("n", "p", withId("w1"));
        queue.add("n", "p", withId("w2"));
        queue.add("n", "p", id("d1").delay(Duration.ofSeconds(5)).build());
        queue.addListener(events);

        assertThatThrownBy(() -> queue.add("n", "p", withId("extra")))
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining(QUEUE)
                .hasMessageContaining("3")
                .satisfies(e -> {
                    QueueFullException full = (QueueFullException) e;
                    assertThat(full.queue()).isEqualTo(QUEUE);
                    assertThat(full.maxQueued()).isEqualTo(3);
                });

        assertThat(queue.job("extra")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(2, 1, 0, 0, 0));
        told(queue);
        assertThat(events.log).isEmpty();
        assertThat(clock.nanos()).as("reject does not wait").isEqualTo(T0);
    }

    @Test
    void runningAndFinishedJobsDoNotCountAgainstTheBound() {
        JobQueue<String> queue = bounded(2, WhenFull.reject());
        queue.add("n", "p", withId("w1"));
        queue.add("n", "p", withId("w2"));
        List<String> addedWhileActive = new ArrayList<>();
        List<Throwable> refused = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.job().id().equals("w1")) {
                addedWhileActive.add(queue.add("n", "p", withId("x")).job().id());
                try {
                    queue.add("n", "p", withId("y"));
                } catch (QueueFullException e) {
                    refused.add(e);
                }
            }
            return Result.done();
        });

        worker.runDue();

        assertThat(addedWhileActive).containsExactly("x");
        assertThat(refused).hasSize(1);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 3, 0));
        queue.add("n", "p", withId("z1"));
        queue.add("n", "p", withId("z2"));
        assertThat(queue.counts().waiting()).isEqualTo(2);
    }

    @Test
    void bulkThatDoesNotFitAddsNone() {
        JobQueue<String> queue = bounded(3, WhenFull.reject());
        queue.add("n", "p", withId("held"));

        assertThatThrownBy(() -> queue.addBulk(List.of(
                        new NewJob<>("n", "p", withId("b1")),
                        new NewJob<>("n", "p", withId("b2")),
                        new NewJob<>("n", "p", withId("b3")))))
                .isInstanceOf(QueueFullException.class);

        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
        assertThat(queue.job("b1")).isEmpty();
        assertThat(queue.addBulk(List.of(new NewJob<>("n", "p", withId("b1")), new NewJob<>("n", "p", withId("b2")))))
                .extracting(Added::duplicate)
                .containsExactly(false, false);
        assertThat(queue.counts()).isEqualTo(counts(3, 0, 0, 0, 0));
    }

    @Test
    void duplicatesNeedNoRoom() {
        JobQueue<String> queue = bounded(2, WhenFull.reject());
        queue.add("n", "p", withId("x"));
        queue.add("n", "p", withId("y"));

        assertThat(queue.add("n", "p", withId("x")).duplicate()).isTrue();
        assertThat(queue.addBulk(List.of(new NewJob<>("n", "p", withId("x")), new NewJob<>("n", "p", withId("y")))))
                .extracting(Added::duplicate)
                .containsExactly(true, true);
        assertThatThrownBy(() -> queue.addBulk(
                        List.of(new NewJob<>("n", "p", withId("x")), new NewJob<>("n", "p", withId("new")))))
                .isInstanceOf(QueueFullException.class);
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 0, 0));
    }

    @Test
    void blockedProducerIsLetInWhenRoomAppears() throws Exception {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofSeconds(10)));
        queue.add("n", "first", withId("a"));

        Async<Added<String>> producer = async(() -> queue.add("n", "second", withId("b")));
        eventually().until(producer::isParked);
        assertThat(producer.future()).isNotDone();
        assertThat(queue.job("b")).isEmpty();

        assertThat(queue.remove("a")).isTrue();

        Added<String> added = producer.future().get(10, TimeUnit.SECONDS);
        assertThat(added.duplicate()).isFalse();
        assertThat(added.job().id()).isEqualTo("b");
        assertThat(added.job().createdAt()).isEqualTo(START);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void blockedProducerIsLetInWhenAJobStarts() {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofSeconds(10)));
        queue.add("n", "p", withId("a"));
        Async<Added<String>> producer = async(() -> queue.add("n", "p", withId("b")));
        eventually().until(producer::isParked);
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ctx.job().id().equals("a")) {
                producer.future().get(10, TimeUnit.SECONDS); // room appeared when a started
            }
            return Result.done();
        });

        worker.runDue();

        assertThat(producer.future()).isCompleted();
        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void blockedProducerGivesUpAfterTheTimeoutOnTheEngineClock() {
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofSeconds(5)));
        queue.add("n", "p", withId("a"));
        int tasksBefore = clock.pendingTasks();

        Async<Added<String>> producer = async(() -> queue.add("n", "p", withId("b")));
        eventually().until(() -> producer.isParked() && clock.pendingTasks() > tasksBefore);

        clock.advanceNanos(5 * SECOND - 1);
        assertThat(producer.future())
                .as("still waiting 1 ns before the timeout")
                .isNotDone();

        clock.advanceNanos(1);

        eventually().until(() -> producer.future().isDone());
        assertThatThrownBy(() -> producer.future().join())
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(QueueFullException.class);
        assertThat(queue.job("b")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void aBlockedProducerThatIsInterruptedGivesUpKeepingItsInterrupt() {
        // pins issue 9: a producer blocked by WhenFull.block ignored interrupts
        JobQueue<String> queue = bounded(1, WhenFull.block(Duration.ofHours(1)));
        queue.add("n", "p", withId("a"));
        Async<Boolean> producer = async(() -> {
            try {
                queue.add("n", "p", withId("b"));
                return false;
            } catch (QueueFullException e) {
                assertThat(e.getMessage()).contains("interrupted");
                return Thread.currentThread().isInterrupted();
            }
        });
        eventually().until(producer::isParked);

        producer.thread().interrupt();

        assertThat(producer.future()).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
        assertThat(queue.job("b")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void blockingBulkWaitsForRoomForAllOfIt() throws Exception {
        JobQueue<String> queue = bounded(3, WhenFull.block(Duration.ofSeconds(10)));
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));

        Async<List<Added<String>>> producer = async(
                () -> queue.addBulk(List.of(new NewJob<>("n", "p", withId("c")), new NewJob<>("n", "p", withId("d")))));
        eventually().until(producer::isParked);
        assertThat(queue.job("c"))
                .as("nothing of a bulk is added before all of it fits")
                .isEmpty();

        queue.remove("a");

        assertThat(producer.future().get(10, TimeUnit.SECONDS)).hasSize(2);
        assertThat(queue.counts()).isEqualTo(counts(3, 0, 0, 0, 0));
    }

    private JobQueue<String> boundedPerGroup(int groupMaxQueued, WhenFull whenFull) {
        return newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().maxQueued(groupMaxQueued).build())
                .whenFull(whenFull)
                .build());
    }

    @Test
    void aFullGroupRefusesItsAddsWhileOtherGroupsAreAccepted() {
        JobQueue<String> queue = boundedPerGroup(2, WhenFull.reject());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", id("a2").group("a").delay(Duration.ofSeconds(5)).build());

        assertThatThrownBy(() -> queue.add("n", "p", inGroup("a3", "a")))
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining("group 'a'")
                .hasMessageContaining("at most 2")
                .satisfies(e -> {
                    QueueFullException full = (QueueFullException) e;
                    assertThat(full.queue()).isEqualTo(QUEUE);
                    assertThat(full.group()).isEqualTo("a");
                    assertThat(full.maxQueued()).isEqualTo(2);
                });
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", inGroup("b2", "b"));

        assertThat(queue.job("a3")).isEmpty();
        assertThat(queue.stats("a").counts()).isEqualTo(counts(1, 1, 0, 0, 0));
        assertThat(queue.stats("b").counts()).isEqualTo(counts(2, 0, 0, 0, 0));
    }

    @Test
    void aBulkThatOverfillsOneGroupAddsNothingOfAnyGroup() {
        JobQueue<String> queue = boundedPerGroup(1, WhenFull.reject());
        queue.add("n", "p", inGroup("a1", "a"));

        assertThatThrownBy(() -> queue.addBulk(List.of(
                        new NewJob<>("n", "p", inGroup("b1", "b")), new NewJob<>("n", "p", inGroup("a2", "a")))))
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining("group 'a'");

        assertThat(queue.job("b1")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void aGroupsOwnLimitsSetItsBoundAtRunTime() {
        JobQueue<String> queue = boundedPerGroup(1, WhenFull.reject());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.setGroupLimits("a", GroupLimits.builder().maxQueued(3).build());
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("a3", "a"));
        assertThatThrownBy(() -> queue.add("n", "p", inGroup("a4", "a")))
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining("at most 3");

        queue.clearGroupLimits("a");
        queue.add("n", "p", inGroup("b1", "b"));
        assertThatThrownBy(() -> queue.add("n", "p", inGroup("b2", "b")))
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining("at most 1");
        assertThat(queue.counts()).isEqualTo(counts(4, 0, 0, 0, 0));
    }

    @Test
    void aProducerBlockedOnItsGroupIsLetInWhenAJobOfThatGroupStarts() {
        JobQueue<String> queue = boundedPerGroup(1, WhenFull.block(Duration.ofSeconds(10)));
        queue.add("n", "p", inGroup("a1", "a"));
        Async<Added<String>> producer = async(() -> queue.add("n", "p", inGroup("a2", "a")));
        eventually().until(producer::isParked);
        queue.add("n", "p", inGroup("b1", "b"));
        assertThat(producer.future())
                .as("room in group b does not help group a")
                .isNotDone();

        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ctx.job().id().equals("a1")) {
                producer.future().get(10, TimeUnit.SECONDS); // room in group a appeared when a1 started
            }
            return Result.done();
        });
        worker.runDue();

        assertThat(producer.future()).isCompleted();
        assertThat(ran).containsExactly("a1", "b1", "a2");
    }
}
