package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Fairness: groups with waiting jobs form a ring in the order they first got one; each start takes the group
 * at the head, which goes to the tail if it has more. Within a group, larger priority first, then the order
 * the jobs became ready.
 */
public abstract class QueueFairnessContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueFairnessContract() {}

    private List<String> runAll(JobQueue<String> queue) {
        List<String> ran = new ArrayList<>();
        manualWorker(queue, recording(ran)).runDue();
        return ran;
    }

    @Test
    void groupsTakeTurnsOneJobEach() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("a3", "a"));
        queue.add("n", "p", inGroup("b1", "b"));

        assertThat(runAll(queue)).containsExactly("a1", "b1", "a2", "a3");
    }

    @Test
    void ungroupedJobsAreOneGroupInTheRing() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", withId("n1"));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", withId("n2"));
        queue.add("n", "p", inGroup("a3", "a"));

        assertThat(runAll(queue)).containsExactly("a1", "n1", "b1", "a2", "n2", "a3");
    }

    @Test
    void manyGroupsAreServedRoundRobin() {
        JobQueue<String> queue = newQueue();
        for (int g = 0; g < 5; g++) {
            for (int j = 0; j < 3; j++) {
                queue.add("n", "p", inGroup("g" + g + "-" + j, "g" + g));
            }
        }
        List<String> expected = new ArrayList<>();
        for (int j = 0; j < 3; j++) {
            for (int g = 0; g < 5; g++) {
                expected.add("g" + g + "-" + j);
            }
        }
        assertThat(runAll(queue)).containsExactlyElementsOf(expected);
    }

    @Test
    void aGroupWithAHundredThousandWaitingJobsDoesNotDelayAGroupWithOne() {
        JobQueue<String> queue = newQueue();
        queue.addBulk(IntStream.range(0, 100_000)
                .mapToObj(i -> new NewJob<>("n", "p", inGroup("big" + i, "big")))
                .toList());
        queue.add("n", "p", inGroup("small1", "small"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ctx.job().group().equals("small")) {
                queue.pause();
            }
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(2);
        assertThat(ran).containsExactly("big0", "small1");

        queue.add("n", "p", inGroup("small2", "small"));
        queue.resume();
        assertThat(worker.runDue()).isEqualTo(2);
        assertThat(ran).containsExactly("big0", "small1", "big1", "small2");
        assertThat(queue.counts().waiting()).isEqualTo(99_998);
    }

    @Test
    void priorityOrdersWithinAGroupOnly() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a-low", "a"));
        queue.add("n", "p", id("a-high").group("a").priority(9).build());
        queue.add("n", "p", inGroup("b-low", "b"));
        queue.add("n", "p", id("a-mid").group("a").priority(5).build());

        assertThat(runAll(queue)).containsExactly("a-high", "b-low", "a-mid", "a-low");
    }

    @Test
    void negativePrioritiesRunLast() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("minus").priority(-5).build());
        queue.add("n", "p", withId("zero"));
        queue.add("n", "p", id("max").priority(Integer.MAX_VALUE).build());
        queue.add("n", "p", id("min").priority(Integer.MIN_VALUE).build());

        assertThat(runAll(queue)).containsExactly("max", "zero", "minus", "min");
    }

    @Test
    void aDelayedJobJoinsItsGroupWhenItBecomesReady() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("late").group("g").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", inGroup("w1", "g"));
        clock.advance(Duration.ofSeconds(1));
        queue.add("n", "p", inGroup("w2", "g"));

        assertThat(runAll(queue)).containsExactly("w1", "late", "w2");
    }

    @Test
    void aGroupThatBecomesReadyJoinsTheRingAtTheTail() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("x1").group("x").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("a3", "a"));
        clock.advance(Duration.ofSeconds(1));
        queue.add("n", "p", inGroup("b1", "b"));

        assertThat(runAll(queue)).containsExactly("a1", "x1", "b1", "a2", "a3");
    }

    @Test
    void aGroupThatEmptiedRejoinsAtTheTail() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", inGroup("b2", "b"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ctx.job().id().equals("a1")) {
                queue.add("n", "p", inGroup("a2", "a"));
            }
            return Result.done();
        });

        worker.runDue();

        // a emptied when a1 started; a2 makes it rejoin behind b
        assertThat(ran).containsExactly("a1", "b1", "a2", "b2");
    }
}
