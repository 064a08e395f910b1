package dev.sluice.testkit;

import static dev.sluice.testkit.JobAssertions.assertNear;
import static dev.sluice.testkit.JobAssertions.assertPercentile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.QueueStats.Latency;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Statistics per queue and per group: counts, added, completed and failed totals, throughput, and wait and
 * processing percentiles, which on the manual clock are exact up to the histogram's 3% precision; the list of
 * groups whose statistics are kept.
 */
public abstract class QueueStatsContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueStatsContract() {}

    private static void assertLatency(Latency latency, List<Duration> samples, String what) {
        assertThat(latency.count()).as("%s count", what).isEqualTo(samples.size());
        assertPercentile(latency.p50(), samples, 0.50, what);
        assertPercentile(latency.p90(), samples, 0.90, what);
        assertPercentile(latency.p99(), samples, 0.99, what);
        assertNear(latency.max(), samples.stream().max(Duration::compareTo).orElseThrow(), what + " max");
    }

    @Test
    void aStartedWorkerThatTakesEachJobAsItIsAddedCountsOneWaitAndOneProcessingTimePerJob() throws Exception {
        JobQueue<String> queue = newQueue();
        startedWorker(
                queue,
                ctx -> {
                    slotThreads.add(Thread.currentThread());
                    return Result.done();
                },
                1);
        int jobs = 10;
        for (int i = 0; i < jobs; i++) {
            // the worker idles when each job comes: an engine may start it in the call that adds it
            queue.add("n", String.valueOf(i));
            assertThat(queue.awaitIdle(Duration.ofSeconds(10))).isTrue();
            awaitSlotsParked();
        }

        QueueStats stats = queue.stats();
        assertThat(stats.completed()).isEqualTo(jobs);
        assertThat(stats.waitTime().count()).as("wait samples").isEqualTo(jobs);
        assertThat(stats.processingTime().count()).as("processing samples").isEqualTo(jobs);
    }

    @Test
    void processingAndWaitPercentilesOfTheQueue() {
        JobQueue<String> queue = newQueue();
        queue.addBulk(IntStream.rangeClosed(1, 100)
                .mapToObj(i -> new NewJob<>("n", String.valueOf(i), withId("j" + i)))
                .toList());
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(Long.parseLong(ctx.payload())));
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(100);

        List<Duration> processing = new ArrayList<>();
        List<Duration> waits = new ArrayList<>();
        long startedAt = 0;
        for (int i = 1; i <= 100; i++) {
            processing.add(Duration.ofMillis(i));
            waits.add(Duration.ofMillis(startedAt));
            startedAt += i;
        }
        QueueStats stats = queue.stats();
        assertThat(stats.completed()).isEqualTo(100);
        assertThat(stats.failed()).isZero();
        assertThat(stats.counts()).isEqualTo(queue.counts()).isEqualTo(counts(0, 0, 0, 100, 0));
        assertLatency(stats.processingTime(), processing, "processing time");
        assertThat(stats.waitTime().count()).isEqualTo(100);
        assertPercentile(stats.waitTime().p50(), waits, 0.50, "wait time");
        assertPercentile(stats.waitTime().p90(), waits, 0.90, "wait time");
        assertPercentile(stats.waitTime().p99(), waits, 0.99, "wait time");
        assertNear(stats.waitTime().max(), Duration.ofMillis(4_950), "wait time max");
    }

    @Test
    void statsOfEachGroupAreItsOwn() {
        JobQueue<String> queue = newQueue();
        for (int i = 0; i < 10; i++) {
            queue.add("n", "10", inGroup("a" + i, "a"));
            queue.add("n", "30", inGroup("b" + i, "b"));
            queue.add("n", "50", withId("u" + i));
        }
        queue.add("fail", "70", inGroup("bf", "b"));
        queue.add("n", "1", id("later").group("a").delay(Duration.ofHours(1)).build());
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(Long.parseLong(ctx.payload())));
            if (ctx.job().name().equals("fail")) {
                throw new Boom("no");
            }
            return Result.done();
        });

        worker.runDue();

        QueueStats a = queue.stats("a");
        QueueStats b = queue.stats("b");
        QueueStats ungrouped = queue.stats(null);
        assertThat(a.completed()).isEqualTo(10);
        assertThat(a.failed()).isZero();
        assertThat(a.counts()).isEqualTo(counts(0, 1, 0, 10, 0));
        assertThat(b.completed()).isEqualTo(10);
        assertThat(b.failed()).isEqualTo(1);
        assertThat(b.counts()).isEqualTo(counts(0, 0, 0, 10, 1));
        assertThat(ungrouped.completed()).isEqualTo(10);
        assertThat(ungrouped.counts()).isEqualTo(counts(0, 0, 0, 10, 0));
        assertLatency(a.processingTime(), nCopies(10, 10), "group a processing");
        List<Duration> bSamples = new ArrayList<>(nCopies(10, 30));
        bSamples.add(Duration.ofMillis(70));
        assertLatency(b.processingTime(), bSamples, "group b processing");
        assertLatency(ungrouped.processingTime(), nCopies(10, 50), "ungrouped processing");
        QueueStats all = queue.stats();
        assertThat(all.completed()).isEqualTo(30);
        assertThat(all.failed()).isEqualTo(1);
        assertThat(all.processingTime().count()).isEqualTo(31);
        assertNear(all.processingTime().max(), Duration.ofMillis(70), "queue processing max");
    }

    private static List<Duration> nCopies(int n, long millis) {
        return Collections.nCopies(n, Duration.ofMillis(millis));
    }

    @Test
    void totalsCountFinishedJobsThatRetentionRemoved() {
        JobQueue<String> queue = newQueue(
                JobOptions.builder().keepCompleted(Retention.keepNone()).keepFailed(Retention.keepNone()));
        for (int i = 0; i < 5; i++) {
            queue.add(i < 3 ? "ok" : "fail", "p");
        }
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done();
                })
                .runDue();

        QueueStats stats = queue.stats();
        assertThat(stats.added()).isEqualTo(5);
        assertThat(stats.completed()).isEqualTo(3);
        assertThat(stats.failed()).isEqualTo(2);
        assertThat(stats.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void totalsCountEveryJobOnceOverallAndPerGroupWhateverRetentionRemoved() {
        JobQueue<String> queue = newQueue(
                JobOptions.builder().keepCompleted(Retention.keepLast(1)).keepFailed(Retention.keepNone()));
        for (int i = 0; i < 4; i++) {
            queue.add(i == 0 ? "fail" : "ok", "p", inGroup("a" + i, "a"));
        }
        queue.add("ok", "p", inGroup("b0", "b"));
        queue.add("fail", "p", withId("u0"));
        queue.add("ok", "p", id("later").group("b").delay(Duration.ofHours(1)).build());
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done();
                })
                .runDue();

        QueueStats all = queue.stats();
        assertThat(all.counts()).as("retention kept the last completed job, a3").isEqualTo(counts(0, 1, 0, 1, 0));
        assertThat(List.of(all.added(), all.completed(), all.failed())).containsExactly(7L, 4L, 2L);
        QueueStats a = queue.stats("a");
        assertThat(a.counts()).isEqualTo(counts(0, 0, 0, 1, 0));
        assertThat(List.of(a.added(), a.completed(), a.failed())).containsExactly(4L, 3L, 1L);
        QueueStats b = queue.stats("b");
        assertThat(b.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
        assertThat(List.of(b.added(), b.completed(), b.failed())).containsExactly(2L, 1L, 0L);
        QueueStats ungrouped = queue.stats(null);
        assertThat(List.of(ungrouped.added(), ungrouped.completed(), ungrouped.failed()))
                .containsExactly(1L, 0L, 1L);
        assertThat(queue.stats("never-seen").added()).isZero();
    }

    @Test
    void aDuplicateAddsNothingAndIsNotCounted() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        queue.add("n", "p", inGroup("j1", "a"));
        queue.add("n", "p", inGroup("j1", "a"));
        queue.addBulk(List.of(
                new NewJob<>("n", "p", inGroup("j1", "a")),
                new NewJob<>("n", "p", inGroup("j2", "a")),
                new NewJob<>("n", "p", inGroup("j2", "a")),
                new NewJob<>("n", "p", withId("u1"))));
        assertThat(queue.stats().added()).isEqualTo(3);
        assertThat(queue.stats("a").added()).isEqualTo(2);
        assertThat(queue.stats(null).added()).isEqualTo(1);

        manualWorker(queue, completing()).runDue();
        queue.add(
                "n",
                "p",
                JobOptions.builder()
                        .jobId("remembered")
                        .deduplicateFor(Duration.ofHours(1))
                        .group("a")
                        .build());
        manualWorker(queue, completing()).runDue();
        queue.add("n", "p", inGroup("remembered", "a"));

        assertThat(queue.stats().added())
                .as("the remembered id, gone from the queue, is a duplicate")
                .isEqualTo(4);
        assertThat(queue.stats("a").added()).isEqualTo(3);
        assertThat(queue.stats("a").completed()).isEqualTo(3);
    }

    @Test
    void everyRunOfARepeatableJobIsCountedAsAdded() {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = manualWorker(queue, completing());
        queue.repeat(
                "rate",
                Schedule.fixedRate(Duration.ofSeconds(10)),
                new NewJob<>("report", "p", JobOptions.builder().group("r").build()));
        for (int second = 0; second < 25; second++) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(queue.stats().completed()).as("runs at 0, 10 and 20 s").isEqualTo(3);
        assertThat(queue.stats().added()).as("and the pending run at 30 s").isEqualTo(4);
        assertThat(queue.stats("r").added()).isEqualTo(4);
    }

    @Test
    void groupsListsTheGroupsHoldingJobsAndThoseWhoseStatisticsAreKeptInOrder() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        assertThat(queue.groups()).isEmpty();
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", withId("u1"));
        queue.add("n", "p", id("c1").group("c").delay(Duration.ofHours(1)).build());
        queue.add("n", "p", inGroup("b2", "b"));
        assertThat(queue.groups()).as("the ungrouped jobs are no named group").containsExactly("a", "b", "c");

        manualWorker(queue, completing()).runDue();
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
        List<String> groups = queue.groups();
        assertThat(groups).as("a and b hold nothing, their statistics are kept").containsExactly("a", "b", "c");

        queue.add("n", "p", inGroup("A1", "A"));
        queue.add("n", "p", inGroup("ab1", "ab"));
        assertThat(groups).as("a list taken before").containsExactly("a", "b", "c");
        assertThat(queue.groups()).containsExactly("A", "a", "ab", "b", "c");
        for (String group : queue.groups()) {
            assertThat(queue.stats(group).added()).as(group).isPositive();
        }
    }

    @Test
    void waitTimeCountsFromWhenTheJobBecameReady() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().attempts(2).backoff(Backoff.fixed(Duration.ofSeconds(3))));
        queue.add("n", "p", id("delayed").delay(Duration.ofSeconds(5)).build());
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() == 1) {
                throw new Boom("again");
            }
            return Result.done();
        });

        clock.advance(Duration.ofSeconds(7)); // ready at 5 s, started at 7 s: waited 2 s
        worker.runDue(); // fails, back at 10 s
        clock.advance(Duration.ofSeconds(4)); // started at 11 s: waited 1 s
        worker.runDue();

        Latency wait = queue.stats().waitTime();
        assertThat(wait.count()).isEqualTo(2);
        assertNear(wait.max(), Duration.ofSeconds(2), "longest wait");
        assertPercentile(wait.p50(), List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), 0.5, "median wait");
    }

    @Test
    void emptyStatsHaveNoSamples() {
        JobQueue<String> queue = newQueue();
        QueueStats stats = queue.stats();
        assertThat(stats.added()).isZero();
        assertThat(stats.completed()).isZero();
        assertThat(stats.failed()).isZero();
        assertThat(stats.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
        assertThat(stats.waitTime().count()).isZero();
        assertThat(stats.processingTime().count()).isZero();
        assertThat(stats.completedPerSecond()).isZero();
        assertThat(queue.stats("never-seen").completed()).isZero();
    }

    @Test
    void completedPerSecondIsOverTheLastMinute() {
        JobQueue<String> queue = newQueue();
        for (int i = 0; i < 30; i++) {
            queue.add("n", "p");
        }
        manualWorker(queue, completing()).runDue();

        clock.advance(Duration.ofSeconds(10));
        assertThat(queue.stats().completedPerSecond()).isCloseTo(0.5, within(0.05));

        clock.advance(Duration.ofSeconds(51));
        assertThat(queue.stats().completedPerSecond()).isZero();
        assertThat(queue.stats().completed()).isEqualTo(30);
    }

    @Test
    void processingTimeOfATimedOutAttemptEndsAtTheTimeout() {
        JobQueue<String> queue = newQueue(JobOptions.builder().timeout(Duration.ofMillis(300)));
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> {
                    clock.advance(Duration.ofSeconds(2));
                    return Result.done();
                })
                .runDue();
        Latency processing = queue.stats().processingTime();
        assertThat(processing.count()).isEqualTo(1);
        assertNear(processing.max(), Duration.ofMillis(300), "timed-out attempt");
        assertThat(queue.stats().failed()).isEqualTo(1);
    }
}
