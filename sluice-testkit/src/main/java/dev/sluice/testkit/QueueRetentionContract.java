package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Retention of finished jobs: keepAll, keepNone, keepLast(n), keepFor(age), for completed and failed jobs. */
public abstract class QueueRetentionContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueRetentionContract() {}

    /** A manual worker whose jobs take 1 s each; jobs named "fail" fail. */
    private Worker<String> failingNamedFail(JobQueue<String> queue) {
        return manualWorker(queue, ctx -> {
            clock.advance(Duration.ofSeconds(1));
            if (ctx.job().name().equals("fail")) {
                throw new Boom("no");
            }
            return Result.done();
        });
    }

    private void addAll(JobQueue<String> queue, List<String> ids) {
        for (String id : ids) {
            queue.add(id.startsWith("f") ? "fail" : "ok", "p", withId(id));
        }
    }

    @Test
    void keepAllKeepsEveryFinishedJob() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()).keepFailed(Retention.keepAll()));
        for (int i = 0; i < 2_000; i++) {
            queue.add(i % 2 == 0 ? "ok" : "fail", "p", withId("j" + i));
        }
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done();
                })
                .runDue();
        clock.advance(Duration.ofDays(30));
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 1_000, 1_000));
    }

    @Test
    void keptJobsAreListedLatestEndingFirstAlsoWhereAWorkerRecordedManyEndingsAtOnce() throws Exception {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        Events events = new Events();
        queue.addListener(events);
        int n = 300;
        for (int i = 0; i < n; i++) {
            queue.add("ok", "p", withId("j" + i));
        }

        startedWorker(queue, ctx -> Result.done(), 16);
        // the listener's count, not awaitIdle: on Redis the queue may be idle before the worker's last call is answered
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> completed(events).size() == n);
        List<String> heard = completed(events);

        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, n))).containsExactlyElementsOf(heard.reversed());
    }

    /** The ids of the jobs {@code events} heard complete, in the order heard. */
    private static List<String> completed(Events events) {
        List<String> ids = new ArrayList<>();
        for (String event : events.log) {
            if (event.startsWith("completed ")) {
                ids.add(event.substring("completed ".length()));
            }
        }
        return ids;
    }

    @Test
    void keepNoneRemovesAJobAsSoonAsItFinishes() {
        JobQueue<String> queue = newQueue(
                JobOptions.builder().keepCompleted(Retention.keepNone()).keepFailed(Retention.keepNone()));
        addAll(queue, List.of("c1", "f1"));
        failingNamedFail(queue).runDue();

        assertThat(queue.job("c1")).isEmpty();
        assertThat(queue.job("f1")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
        assertThat(queue.stats().completed()).isEqualTo(1);
        assertThat(queue.stats().failed()).isEqualTo(1);
    }

    @Test
    void keepLastKeepsTheNewestOfEachState() {
        JobQueue<String> queue = newQueue(
                JobOptions.builder().keepCompleted(Retention.keepLast(2)).keepFailed(Retention.keepLast(1)));
        addAll(queue, List.of("c1", "f1", "c2", "f2", "c3", "c4", "f3"));
        failingNamedFail(queue).runDue();

        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c4", "c3");
        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("f3");
        assertThat(queue.job("c1")).isEmpty();
        assertThat(queue.job("c2")).isEmpty();
        assertThat(queue.job("f2")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 2, 1));
    }

    @Test
    void keepLastCountsPerStateNotPerJob() {
        JobQueue<String> queue = newQueue(
                JobOptions.builder().keepCompleted(Retention.keepLast(3)).keepFailed(Retention.keepLast(3)));
        addAll(queue, List.of("c1", "c2", "f1", "f2", "f3", "f4"));
        failingNamedFail(queue).runDue();
        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c2", "c1");
        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("f4", "f3", "f2");
    }

    @Test
    void keepForRemovesAJobOnceItHasBeenFinishedThatLong() {
        JobQueue<String> queue = newQueue(JobOptions.builder()
                .keepCompleted(Retention.keepFor(Duration.ofSeconds(10)))
                .keepFailed(Retention.keepFor(Duration.ofSeconds(20))));
        addAll(queue, List.of("c1", "f1"));
        failingNamedFail(queue).runDue(); // c1 finished at 1 s, f1 at 2 s; now 2 s

        clock.advance(Duration.ofMillis(8_999)); // 10.999 s: c1 finished 9.999 s ago
        assertThat(queue.job("c1")).isPresent();
        clock.advance(Duration.ofSeconds(2)); // 12.999 s
        assertThat(queue.job("c1")).isEmpty();
        assertThat(queue.job("f1")).isPresent();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 1));

        clock.advance(Duration.ofSeconds(10)); // 22.999 s: f1 finished 20.999 s ago
        assertThat(queue.job("f1")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void keepLastAndForAppliesBothBounds() {
        JobQueue<String> queue = newQueue(
                JobOptions.builder().keepCompleted(Retention.keepLast(2).andFor(Duration.ofMinutes(1))));
        addAll(queue, List.of("c1", "c2", "c3"));
        failingNamedFail(queue).runDue();
        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c3", "c2");
        clock.advance(Duration.ofMinutes(2));
        assertThat(queue.jobs(JobState.COMPLETED, 0, 10)).isEmpty();
    }

    @Test
    void aJobsOwnRetentionAppliesWhenItFinishes() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        queue.add("ok", "p", withId("dropped"));
        queue.add("ok", "p", id("kept").keepCompleted(Retention.keepAll()).build());
        manualWorker(queue, completing()).runDue();
        assertThat(queue.job("dropped")).isEmpty();
        assertThat(queue.job("kept")).isPresent();
    }

    @Test
    void keepLastOfAFinishingJobTrimsTheQueuesFinishedJobsOfThatState() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        for (String id : List.of("c1", "c2", "c3")) {
            queue.add("ok", "p", withId(id));
        }
        queue.add("ok", "p", id("c4").keepCompleted(Retention.keepLast(2)).build());
        failingNamedFail(queue).runDue();
        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c4", "c3");
    }

    @Test
    void retriedJobIsNotRemovedByRetentionOfItsEarlierFailure() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().attempts(2).keepFailed(Retention.keepFor(Duration.ofSeconds(5))));
        queue.add("fail", "p", withId("f"));
        Worker<String> worker = manualWorker(queue, throwing("no"));
        worker.runDue();
        assertThat(stateOf(queue, "f")).isEqualTo(JobState.FAILED);

        queue.retry("f");
        clock.advance(Duration.ofSeconds(10));

        assertThat(stateOf(queue, "f"))
                .as("a waiting job is not retained or removed")
                .isEqualTo(JobState.WAITING);
    }

    @Test
    void ageBasedRetentionGoesOnAfterARetry() {
        // pins issue 9: a retry changed the expiry of a job inside the expiry heap, and expiry stopped at it
        JobQueue<String> queue = newQueue(JobOptions.builder().keepFailed(Retention.keepFor(Duration.ofSeconds(5))));
        Worker<String> worker = manualWorker(queue, throwing("no"));
        queue.add("fail", "p", withId("a"));
        worker.runDue();
        advanceMillis(1_000);
        queue.add("fail", "p", withId("b"));
        worker.runDue();
        advanceMillis(1_000);

        queue.retry("a");
        advanceMillis(4_000);

        assertThat(queue.job("b")).as("b failed at 1 s and is kept for 5 s").isEmpty();
        assertThat(stateOf(queue, "a")).isEqualTo(JobState.WAITING);
        worker.runDue();
        advanceMillis(4_999);
        assertThat(stateOf(queue, "a")).isEqualTo(JobState.FAILED);
        advanceMillis(1);
        assertThat(queue.job("a")).as("a failed again at 6 s").isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void keepLastCountsOnlyJobsStillFailedAfterARetry() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepFailed(Retention.keepLast(2)));
        addAll(queue, List.of("f1", "f2"));
        Worker<String> worker = failingNamedFail(queue);
        worker.runDue();
        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("f2", "f1");

        queue.retry("f1");
        queue.add("fail", "p", withId("f3"));
        assertThat(queue.jobs(JobState.WAITING, 0, 10)).hasSize(2);
        List<String> order = new ArrayList<>();
        manualWorker(queue, ctx -> {
                    order.add(ctx.job().id());
                    clock.advance(Duration.ofSeconds(1));
                    throw new Boom("no");
                })
                .runDue();

        assertThat(order).containsExactly("f1", "f3");
        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("f3", "f1");
        assertThat(queue.job("f2")).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 2));
    }

    @Test
    void keepLastCountsOnlyJobsNotRemovedByHand() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepLast(2)));
        addAll(queue, List.of("c1", "c2"));
        Worker<String> worker = failingNamedFail(queue);
        worker.runDue();
        assertThat(queue.remove("c2")).isTrue();

        queue.add("ok", "p", withId("c3"));
        worker.runDue();

        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c3", "c1");
        assertThat(queue.counts().completed()).isEqualTo(2);
    }

    @Test
    void keepLastCountsOnlyJobsNotCleaned() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepLast(2)));
        addAll(queue, List.of("c1", "c2"));
        Worker<String> worker = failingNamedFail(queue);
        worker.runDue(); // c1 finished at 1 s, c2 at 2 s; now 2 s
        assertThat(queue.clean(JobState.COMPLETED, Duration.ofSeconds(1))).isEqualTo(1);

        addAll(queue, List.of("c3", "c4"));
        worker.runDue();

        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c4", "c3");
        addAll(queue, List.of("c5"));
        worker.runDue();
        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c5", "c4");
    }

    @Test
    void jobsKeptForDifferentAgesExpireInTheOrderOfTheirExpiry() {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = manualWorker(queue, completing());
        for (int[] idAndSeconds : new int[][] {{1, 30}, {2, 10}, {3, 40}, {4, 20}}) {
            queue.add(
                    "ok",
                    "p",
                    id("j" + idAndSeconds[0])
                            .keepCompleted(Retention.keepFor(Duration.ofSeconds(idAndSeconds[1])))
                            .build());
        }
        worker.runDue();

        List<List<String>> keptAfter = new ArrayList<>();
        for (int step = 1; step <= 4; step++) {
            advanceMillis(10_000);
            keptAfter.add(ids(queue.jobs(JobState.COMPLETED, 0, 10)));
        }

        assertThat(keptAfter).containsExactly(List.of("j4", "j3", "j1"), List.of("j3", "j1"), List.of("j3"), List.of());
    }
}
