package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a queue keeps per group as jobs move: the counts after a job is taken by priority, promoted from delayed,
 * or removed; jobs due at one instant in the order they were added; groups paused until different instants
 * coming back in the order of those instants; each group's rate its own.
 */
public abstract class QueueGroupBookkeepingContract extends QueueContractSupport {
    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    /** For subclasses, one per engine. */
    protected QueueGroupBookkeepingContract() {}

    @Test
    void aGroupsCountsFollowEachJobTakenByPriority() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("low").group("a").build());
        queue.add("n", "p", id("high1").group("a").priority(5).build());
        queue.add("n", "p", id("high2").group("a").priority(5).build());
        List<String> seen = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            JobCounts counts = queue.stats("a").counts();
            seen.add(ctx.job().id() + " " + counts.waiting() + "/" + counts.active());
            return Result.done();
        });

        worker.runDue();

        assertThat(seen).containsExactly("high1 2/1", "high2 1/1", "low 0/1");
        assertThat(queue.stats("a").counts().waiting()).isZero();
        assertThat(queue.stats("a").completed()).isEqualTo(3);
    }

    @Test
    void aJobRemovedFromAHigherPriorityLeavesTheLowerOnesToRun() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("high").group("a").priority(5).build());
        queue.add("n", "p", id("low").group("a").build());
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        assertThat(queue.remove("high")).isTrue();
        assertThat(queue.stats("a").counts().waiting()).isEqualTo(1);
        worker.runDue();

        assertThat(ran).containsExactly("low");
        assertThat(queue.stats("a").counts().waiting()).isZero();
    }

    @Test
    void aGroupWhoseWaitingJobsWereAllRemovedTakesNewOnesInPriorityOrder() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("x").group("a").priority(3).build());
        queue.add("n", "p", id("y").group("a").build());
        assertThat(queue.remove("x")).isTrue();
        assertThat(queue.remove("y")).isTrue();
        assertThat(queue.stats("a").counts().waiting()).isZero();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        queue.add("n", "p", id("z").group("a").build());
        queue.add("n", "p", id("w").group("a").priority(3).build());
        worker.runDue();

        assertThat(ran).containsExactly("w", "z");
    }

    @Test
    void aDelayedJobCountsAsDelayedInItsGroupUntilItIsPromoted() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("d").group("a").delay(ONE_SECOND).build());
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        assertThat(queue.stats("a").counts()).isEqualTo(counts(0, 1, 0, 0, 0));
        clock.advance(ONE_SECOND);
        assertThat(queue.stats("a").counts()).isEqualTo(counts(1, 0, 0, 0, 0));
        worker.runDue();

        assertThat(ran).containsExactly("d");
        assertThat(queue.stats("a").counts()).isEqualTo(counts(0, 0, 0, 1, 0));
    }

    @Test
    void jobsDueAtTheSameInstantAreListedAndRunInTheOrderTheyWereAdded() {
        JobQueue<String> queue = newQueue();
        List<String> ids = List.of("d1", "d2", "d3", "d4", "d5");
        for (String id : ids) {
            queue.add("n", "p", id(id).delay(ONE_SECOND).build());
        }
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        assertThat(ids(queue.jobs(JobState.DELAYED, 0, 10))).containsExactlyElementsOf(ids);
        clock.advance(ONE_SECOND);
        worker.runDue();

        assertThat(ran).containsExactlyElementsOf(ids);
    }

    @Test
    void groupsPausedUntilDifferentInstantsComeBackInTheOrderOfThoseInstants() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", inGroup("c1", "c"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            String id = ctx.job().id();
            ran.add(id);
            if (ctx.job().rateLimits() > 0) {
                return Result.done();
            }
            // a pauses longest, b shortest, c in between; each is paused before the next
            int seconds = id.equals("a1") ? 3 : id.equals("b1") ? 1 : 2;
            return Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(seconds));
        });
        worker.runDue();
        assertThat(ran).containsExactly("a1", "b1", "c1");

        for (int second = 1; second <= 3; second++) {
            clock.advance(ONE_SECOND);
            worker.runDue();
        }

        assertThat(ran).containsExactly("a1", "b1", "c1", "b1", "c1", "a1");
    }

    @Test
    void eachGroupTakesFromItsOwnRate() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder()
                        .rate(SlidingWindowLog.of(1, ONE_SECOND))
                        .build())
                .build());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", id("u1").build());
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        worker.runDue();
        assertThat(ran)
                .as("one of each group, the ungrouped jobs one group of their own")
                .containsExactlyInAnyOrder("a1", "b1", "u1");

        clock.advance(ONE_SECOND);
        worker.runDue();
        assertThat(ran).hasSize(4).last().isEqualTo("a2");
    }

    @Test
    void aBoundOnEveryGroupsWaitingJobsHoldsWithoutAnyGroupsOwnLimits() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().maxQueued(1).build())
                .build());
        queue.add("n", "p", inGroup("a1", "a"));

        assertThatThrownBy(() -> queue.add("n", "p", inGroup("a2", "a"))).isInstanceOf(QueueFullException.class);
        queue.add("n", "p", inGroup("b1", "b"));
        assertThat(queue.counts().waiting()).isEqualTo(2);
    }
}
