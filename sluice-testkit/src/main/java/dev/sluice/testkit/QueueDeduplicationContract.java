package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Added;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * De-duplication by job id: an add whose id the queue holds, or still remembers ({@link
 * JobOptions#deduplicateFor}), adds nothing and says it was a duplicate.
 */
public abstract class QueueDeduplicationContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueDeduplicationContract() {}

    @Test
    void addingAHeldIdReturnsTheExistingJobAsADuplicate() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("first", "one", withId("x"));
        clock.advance(Duration.ofSeconds(1));

        Added<String> again = queue.add("second", "two", id("x").priority(9).build());

        assertThat(again.duplicate()).isTrue();
        assertThat(again.job()).isNotNull();
        assertThat(again.job().name()).isEqualTo("first");
        assertThat(again.job().payload()).isEqualTo("one");
        assertThat(again.job().createdAt()).isEqualTo(START);
        assertThat(again.job().options().priority()).isZero();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
        told(queue);
        assertThat(events.log).containsExactly("added x");
    }

    @Test
    void aDuplicateOfADelayedJobLeavesItDelayed() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("x").delay(Duration.ofSeconds(10)).build());
        Added<String> again = queue.add("n", "p", withId("x"));
        assertThat(again.duplicate()).isTrue();
        assertThat(again.job().state()).isEqualTo(JobState.DELAYED);
        assertThat(job(queue, "x").runAt()).isEqualTo(atMillis(10_000));
    }

    @Test
    void aCompletedJobStillHeldDeduplicates() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        queue.add("n", "p", withId("x"));
        manualWorker(queue, completing()).runDue();
        clock.advance(Duration.ofDays(3));

        Added<String> again = queue.add("n", "p", withId("x"));

        assertThat(again.duplicate()).isTrue();
        assertThat(again.job().state()).isEqualTo(JobState.COMPLETED);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 1, 0));
    }

    @Test
    void withoutDeduplicateForARemovedJobsIdIsFreeAgain() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        queue.add("n", "first", withId("x"));
        Worker<String> worker = manualWorker(queue, completing());
        worker.runDue();
        assertThat(queue.job("x")).isEmpty();

        Added<String> again = queue.add("n", "second", withId("x"));

        assertThat(again.duplicate()).isFalse();
        assertThat(again.job().payload()).isEqualTo("second");
        assertThat(again.job().state()).isEqualTo(JobState.WAITING);
    }

    @Test
    void deduplicateForRemembersTheIdAfterRetentionRemovedTheJob() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        JobOptions options = id("x").deduplicateFor(Duration.ofMinutes(1)).build();
        queue.add("n", "first", options);
        Worker<String> worker = manualWorker(queue, taking(500));
        worker.runDue(); // finished at 500 ms, removed at once
        assertThat(queue.job("x")).isEmpty();
        Events events = new Events();
        queue.addListener(events);

        clock.advance(Duration.ofSeconds(30));
        Added<String> during = queue.add("n", "second", options);
        assertThat(during).isEqualTo(new Added<String>(null, true));

        clock.advanceNanos(30 * SECOND - MS); // 1 ms before the window ends (60.5 s)
        assertThat(queue.add("n", "third", options)).isEqualTo(new Added<String>(null, true));
        assertThat(queue.counts().total()).isZero();
        told(queue);
        assertThat(events.log).isEmpty();

        clock.advance(Duration.ofMillis(2)); // 1 ms after it ended
        Added<String> after = queue.add("n", "fourth", options);
        assertThat(after.duplicate()).isFalse();
        assertThat(after.job().payload()).isEqualTo("fourth");
        told(queue);
        assertThat(events.log).containsExactly("added x");
    }

    @Test
    void deduplicateForAlsoHoldsForAFailedJobRemovedByRetention() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepFailed(Retention.keepNone()));
        JobOptions options = id("x").deduplicateFor(Duration.ofSeconds(10)).build();
        queue.add("n", "p", options);
        manualWorker(queue, throwing("nope")).runDue();
        assertThat(queue.job("x")).isEmpty();
        assertThat(queue.stats().failed()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(9));
        assertThat(queue.add("n", "p", options).duplicate()).isTrue();
        clock.advance(Duration.ofSeconds(2));
        assertThat(queue.add("n", "p", options).duplicate()).isFalse();
    }

    @Test
    void deduplicateForOutlivesAnAgeRetention() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepFor(Duration.ofSeconds(5))));
        JobOptions options = id("x").deduplicateFor(Duration.ofMinutes(1)).build();
        queue.add("n", "p", options);
        manualWorker(queue, completing()).runDue();
        assertThat(job(queue, "x").state()).isEqualTo(JobState.COMPLETED);

        clock.advance(Duration.ofSeconds(30));
        assertThat(queue.job("x")).as("removed by keepFor(5 s)").isEmpty();

        assertThat(queue.add("n", "p", options)).isEqualTo(new Added<String>(null, true));
    }

    @Test
    void aRememberedIdIsADuplicateInABulkToo() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        JobOptions options = id("x").deduplicateFor(Duration.ofMinutes(1)).build();
        queue.add("n", "p", options);
        manualWorker(queue, completing()).runDue();

        List<Added<String>> answers =
                queue.addBulk(List.of(new NewJob<>("n", "p", options), new NewJob<>("n", "p", withId("y"))));

        assertThat(answers.get(0)).isEqualTo(new Added<String>(null, true));
        assertThat(answers.get(1).duplicate()).isFalse();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void idsTheQueueGivesPassOverIdsHeldOrRememberedAlsoWithinABulk() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        // the engines number the jobs they give ids from 1: these take some of those numbers first
        queue.add(
                "remembered",
                "five",
                id("5").deduplicateFor(Duration.ofMinutes(1)).build());
        manualWorker(queue, completing()).runDue();
        queue.add("held", "two", withId("2"));

        Added<String> single = queue.add("n", "p");
        List<Added<String>> bulk = queue.addBulk(List.of(
                new NewJob<>("n", "a"),
                new NewJob<>("given", "four", withId("4")),
                new NewJob<>("n", "c"),
                new NewJob<>("n", "d")));

        List<String> given = List.of(
                single.job().id(),
                bulk.get(0).job().id(),
                bulk.get(2).job().id(),
                bulk.get(3).job().id());
        assertThat(given).doesNotHaveDuplicates().doesNotContain("2", "4", "5");
        assertThat(bulk).noneMatch(Added::duplicate);
        assertThat(queue.job("2").orElseThrow().payload()).isEqualTo("two");
        assertThat(queue.job("4").orElseThrow().payload()).isEqualTo("four");
        assertThat(queue.job("5")).isEmpty();
        assertThat(queue.job(bulk.get(2).job().id()).orElseThrow().payload()).isEqualTo("c");
        assertThat(queue.counts()).isEqualTo(counts(6, 0, 0, 0, 0));
    }

    @Test
    void aDuplicateDoesNotRefreshTheJob() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(3));
        queue.add("n", "p", withId("x"));
        manualWorker(queue, ctx -> {
                    throw new Boom("no");
                })
                .runDue();
        assertThat(job(queue, "x").state()).isEqualTo(JobState.FAILED);

        Added<String> again = queue.add("n", "p", withId("x"));

        assertThat(again.duplicate()).isTrue();
        assertThat(again.job().state()).isEqualTo(JobState.FAILED);
        assertThat(job(queue, "x").attemptsMade()).isEqualTo(3);
    }

    /**
     * An id the queue numbers is one it neither holds nor remembers: it skips those producers gave (even in the same
     * bulk) and those still de-duplicating, whichever came first.
     */
    @Test
    void theQueueNumbersPastIdsProducersGaveAndIdsItRemembers() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        queue.add("n", "p", withId("2"));
        List<String> numbered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            numbered.add(queue.add("n", "p").job().id());
        }
        queue.add("n", "p", id("8").deduplicateFor(Duration.ofMinutes(1)).build());
        Worker<String> worker = manualWorker(queue, taking(1));
        while (queue.job("8").isPresent()) {
            worker.runDue();
        }
        numbered.addAll(queue
                .addBulk(List.of(
                        new NewJob<>("n", "p", JobOptions.empty()),
                        new NewJob<>("n", "p", withId("6")),
                        new NewJob<>("n", "p", JobOptions.empty()),
                        new NewJob<>("n", "p", JobOptions.empty()),
                        new NewJob<>("n", "p", withId("0010")),
                        new NewJob<>("n", "p", JobOptions.empty())))
                .stream()
                .map(added -> added.job().id())
                .toList());

        assertThat(numbered).containsExactly("1", "3", "4", "5", "6", "7", "9", "0010", "10");
    }
}
