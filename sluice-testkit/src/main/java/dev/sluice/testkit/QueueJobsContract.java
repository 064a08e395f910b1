package dev.sluice.testkit;

import static dev.sluice.testkit.JobAssertions.assertAttempts;
import static dev.sluice.testkit.JobAssertions.attempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Added;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Adding jobs (one, in bulk), reading them back (one, counts, pages by state), and every field of a job
 * snapshot: exact timestamps on the manual clock, resolved options, progress, result, attempt history.
 */
public abstract class QueueJobsContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueJobsContract() {}

    @Test
    void addedJobIsWaitingWithEveryFieldSet() {
        JobQueue<String> queue = newQueue();
        clock.advance(Duration.ofMillis(1_500));

        Added<String> added = queue.add("email", "hello", inGroup("j1", "tenant-a"));

        assertThat(added.duplicate()).isFalse();
        Job<String> job = added.job();
        assertThat(job.id()).isEqualTo("j1");
        assertThat(job.name()).isEqualTo("email");
        assertThat(job.payload()).isEqualTo("hello");
        assertThat(job.group()).isEqualTo("tenant-a");
        assertThat(job.state()).isEqualTo(JobState.WAITING);
        assertThat(job.attemptsMade()).isZero();
        assertThat(job.rateLimits()).isZero();
        assertThat(job.createdAt()).isEqualTo(atMillis(1_500));
        assertThat(job.runAt()).isNull();
        assertThat(job.startedAt()).isNull();
        assertThat(job.finishedAt()).isNull();
        assertThat(job.progress()).isZero();
        assertThat(job.result()).isNull();
        assertThat(job.failure()).isNull();
        assertThat(job.attempts()).isEmpty();
        assertThat(job(queue, "j1")).isEqualTo(job);
    }

    @Test
    void whatAnAddAnswersIsTheJobAsTheQueueHoldsIt() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(3).backoff(Backoff.fixed(Duration.ZERO)));
        List<Added<String>> added = new ArrayList<>();
        added.add(queue.add("plain", "p"));
        added.add(queue.add("given", "p", withId("given")));
        added.add(queue.add(
                "delayed",
                "p",
                JobOptions.builder()
                        .jobId("delayed")
                        .group("g")
                        .delay(Duration.ofMillis(1_500))
                        .priority(4)
                        .timeout(Duration.ofSeconds(9))
                        .keepCompleted(Retention.keepLast(5))
                        .keepFailed(Retention.keepFor(Duration.ofHours(1)))
                        .maxRateLimits(2)
                        .build()));
        added.addAll(queue.addBulk(List.of(
                new NewJob<>("bulk", "a", JobOptions.defaults()),
                new NewJob<>("bulk", "b", JobOptions.builder().group("g").build()))));
        added.add(queueAsyncAdded(queue));

        assertThat(added).allSatisfy(a -> {
            assertThat(a.duplicate()).isFalse();
            assertThat(a.job()).isEqualTo(job(queue, a.job().id()));
        });
        assertThat(added.get(2).job().state()).isEqualTo(JobState.DELAYED);
        assertThat(added.get(2).job().runAt()).isEqualTo(START.plusMillis(1_500));
    }

    private static Added<String> queueAsyncAdded(JobQueue<String> queue) {
        return queue.addAsync("async", "p").join();
    }

    @Test
    void assignedIdsAreUniqueAndFindTheirJobs() {
        JobQueue<String> queue = newQueue();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            Added<String> added = queue.add("n", "p" + i);
            assertThat(added.duplicate()).isFalse();
            assertThat(added.job().id()).isNotBlank();
            assertThat(seen.add(added.job().id()))
                    .as("id %s is new", added.job().id())
                    .isTrue();
        }
        for (String id : seen) {
            assertThat(queue.job(id)).isPresent();
        }
        assertThat(queue.counts()).isEqualTo(counts(1_000, 0, 0, 0, 0));
    }

    @Test
    void unknownJobIsEmpty() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("known"));
        assertThat(queue.job("unknown")).isEmpty();
        assertThat(queue.job("known")).isPresent();
    }

    @Test
    void jobOptionsAreResolvedFromTheQueueDefaults() {
        JobOptions defaults = JobOptions.builder()
                .attempts(3)
                .backoff(Backoff.fixed(Duration.ofSeconds(2)))
                .priority(5)
                .timeout(Duration.ofMinutes(1))
                .keepCompleted(Retention.keepAll())
                .build();
        JobQueue<String> queue =
                newQueue(QueueOptions.builder().jobDefaults(defaults).build());

        JobOptions own = queue.add("n", "p", id("j1").attempts(7).priority(-1).build())
                .job()
                .options();
        JobOptions inherited = queue.add("n", "p", withId("j2")).job().options();

        assertThat(own.attempts()).isEqualTo(7);
        assertThat(own.priority()).isEqualTo(-1);
        assertThat(own.backoff()).isEqualTo(Backoff.fixed(Duration.ofSeconds(2)));
        assertThat(own.timeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(own.keepCompleted()).isEqualTo(Retention.keepAll());
        assertThat(own.keepFailed()).isEqualTo(Retention.keepLast(10_000));
        assertThat(own.delay()).isEqualTo(Duration.ZERO);
        assertThat(own.maxRateLimits()).isEqualTo(100);
        assertThat(own.deduplicateFor()).isNull();
        assertThat(own.group()).isNull();

        assertThat(inherited.attempts()).isEqualTo(3);
        assertThat(inherited.priority()).isEqualTo(5);
        assertThat(inherited.backoff()).isEqualTo(Backoff.fixed(Duration.ofSeconds(2)));
        assertThat(job(queue, "j2").options().attempts()).isEqualTo(3);
    }

    @Test
    void jobOptionsWithoutQueueDefaultsAreTheBuiltInDefaults() {
        JobQueue<String> queue = newQueue();
        JobOptions options = queue.add("n", "p").job().options();
        JobOptions builtIn = JobOptions.defaults();
        assertThat(options.attempts()).isEqualTo(builtIn.attempts()).isEqualTo(1);
        assertThat(options.backoff()).isEqualTo(Backoff.none());
        assertThat(options.delay()).isEqualTo(Duration.ZERO);
        assertThat(options.priority()).isZero();
        assertThat(options.timeout()).isNull();
        assertThat(options.keepCompleted()).isEqualTo(Retention.keepLast(1_000));
        assertThat(options.keepFailed()).isEqualTo(Retention.keepLast(10_000));
        assertThat(options.maxRateLimits()).isEqualTo(100);
    }

    @Test
    void payloadIsCopiedWhenAdded() {
        JobQueue<byte[]> queue = engine.queue("bytes", Codec.bytes());
        byte[] payload = {1, 2, 3};
        queue.add("n", payload, withId("b"));
        payload[0] = 9;
        assertThat(job(queue, "b").payload()).containsExactly(1, 2, 3);
        job(queue, "b").payload()[1] = 9;
        assertThat(job(queue, "b").payload()).containsExactly(1, 2, 3);
    }

    @Test
    void unicodePayloadRoundTrips() {
        JobQueue<String> queue = newQueue();
        String payload = "naïve ☃ \uD83D\uDE00 日本";
        queue.add("n", payload, withId("u"));
        assertThat(job(queue, "u").payload()).isEqualTo(payload);
    }

    @Test
    void delayedJobHasExactRunAtAndBecomesWaitingExactlyThen() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("d").delay(Duration.ofSeconds(5)).build());

        Job<String> delayed = job(queue, "d");
        assertThat(delayed.state()).isEqualTo(JobState.DELAYED);
        assertThat(delayed.runAt()).isEqualTo(atMillis(5_000));
        assertThat(delayed.createdAt()).isEqualTo(START);
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));

        clock.advanceNanos(5 * SECOND - 1);
        assertThat(stateOf(queue, "d")).isEqualTo(JobState.DELAYED);
        clock.advanceNanos(1);
        Job<String> ready = job(queue, "d");
        assertThat(ready.state()).isEqualTo(JobState.WAITING);
        assertThat(ready.runAt()).isNull();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void completedJobHasExactTimestampsResultAndOneAttempt() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("j").delay(Duration.ofSeconds(5)).build());
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(250));
            return Result.done("{\"ok\":true}");
        });

        clock.advance(Duration.ofSeconds(5));
        assertThat(worker.runDue()).isEqualTo(1);

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.createdAt()).isEqualTo(START);
        assertThat(job.startedAt()).isEqualTo(atMillis(5_000));
        assertThat(job.finishedAt()).isEqualTo(atMillis(5_250));
        assertThat(job.runAt()).isNull();
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.result()).isEqualTo("{\"ok\":true}");
        assertThat(job.failure()).isNull();
        assertAttempts(job, attempt(1, 5_000, 5_250, Outcome.COMPLETED, null));
    }

    @Test
    void doneWithoutValueLeavesResultNull() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue();
        assertThat(job(queue, "j").state()).isEqualTo(JobState.COMPLETED);
        assertThat(job(queue, "j").result()).isNull();
    }

    @Test
    void processorSeesTheJobAsActiveWithItsAttemptNumber() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(3));
        queue.add("n", "payload", inGroup("j", "g"));
        List<Job<String>> seen = new CopyOnWriteArrayList<>();
        List<Integer> numbers = new CopyOnWriteArrayList<>();
        List<String> payloads = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            seen.add(ctx.job());
            numbers.add(ctx.attempt());
            payloads.add(ctx.payload());
            clock.advance(Duration.ofMillis(10));
            if (ctx.attempt() < 3) {
                throw new Boom("try " + ctx.attempt());
            }
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(3);

        assertThat(numbers).containsExactly(1, 2, 3);
        assertThat(payloads).containsOnly("payload");
        assertThat(seen).extracting(Job::state).containsOnly(JobState.ACTIVE);
        assertThat(seen).extracting(Job::attemptsMade).containsExactly(0, 1, 2);
        assertThat(seen).extracting(Job::startedAt).containsExactly(atMillis(0), atMillis(10), atMillis(20));
        assertThat(seen).extracting(Job::group).containsOnly("g");
        Job<String> done = job(queue, "j");
        assertThat(done.attemptsMade()).isEqualTo(3);
        assertThat(done.startedAt()).isEqualTo(atMillis(20));
        assertAttempts(
                done,
                attempt(1, 0, 10, Outcome.FAILED, "try 1"),
                attempt(2, 10, 20, Outcome.FAILED, "try 2"),
                attempt(3, 20, 30, Outcome.COMPLETED, null));
    }

    @Test
    void progressIsVisibleWhileRunningAndKeepsTheLastValue() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        List<Integer> seenFromOutside = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ctx.progress(30);
            seenFromOutside.add(job(queue, "j").progress());
            ctx.progress(70);
            seenFromOutside.add(job(queue, "j").progress());
            return Result.done();
        });

        worker.runDue();

        assertThat(seenFromOutside).containsExactly(30, 70);
        assertThat(job(queue, "j").progress()).isEqualTo(70);
    }

    @Test
    void snapshotsDoNotChangeWhenTheJobDoes() {
        JobQueue<String> queue = newQueue();
        Job<String> before = queue.add("n", "p", withId("j")).job();
        manualWorker(queue, completing()).runDue();
        assertThat(before.state()).isEqualTo(JobState.WAITING);
        assertThat(before.attempts()).isEmpty();
        assertThat(job(queue, "j").state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void countsReflectEveryStateAtOneInstant() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        queue.add("done", "p", withId("c"));
        queue.add("fail", "p", withId("f"));
        queue.add("observe", "p", withId("a"));
        queue.add("wait", "p", id("w").priority(-10).build());
        queue.add("later", "p", id("d").delay(Duration.ofMinutes(1)).build());
        AtomicReference<JobCounts> whileActive = new AtomicReference<>();
        Worker<String> worker = manualWorker(queue, ctx -> switch (ctx.job().name()) {
            case "fail" -> throw new Boom("no");
            case "observe" -> {
                whileActive.set(queue.counts());
                queue.pause();
                yield Result.done();
            }
            default -> Result.done();
        });

        worker.runDue();

        assertThat(whileActive.get()).isEqualTo(counts(1, 1, 1, 1, 1));
        assertThat(queue.counts()).isEqualTo(counts(1, 1, 0, 2, 1));
        assertThat(queue.counts().total()).isEqualTo(5);
        assertThat(queue.counts().of(JobState.FAILED)).isEqualTo(1);
    }

    @Test
    void addBulkAddsEveryJobInOrder() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);

        List<Added<String>> answers = queue.addBulk(List.of(
                new NewJob<>("a", "1", withId("b1")),
                new NewJob<>("b", "2", id("b2").delay(Duration.ofSeconds(1)).build()),
                new NewJob<>("c", "3")));

        assertThat(answers).hasSize(3);
        assertThat(answers).extracting(Added::duplicate).containsOnly(false);
        assertThat(answers.get(0).job().id()).isEqualTo("b1");
        assertThat(answers.get(1).job().state()).isEqualTo(JobState.DELAYED);
        assertThat(answers.get(2).job().name()).isEqualTo("c");
        assertThat(answers.get(2).job().payload()).isEqualTo("3");
        assertThat(queue.counts()).isEqualTo(counts(2, 1, 0, 0, 0));
        told(queue);
        assertThat(events.log)
                .containsExactly(
                        "added b1", "added b2", "added " + answers.get(2).job().id());
    }

    @Test
    void addBulkReportsDuplicatesWithinTheListAndOfHeldJobs() {
        JobQueue<String> queue = newQueue();
        queue.add("held", "old", withId("held"));

        List<Added<String>> answers = queue.addBulk(List.of(
                new NewJob<>("n", "x1", withId("x")),
                new NewJob<>("n", "new", withId("held")),
                new NewJob<>("n", "x2", withId("x")),
                new NewJob<>("n", "y", withId("y"))));

        assertThat(answers).extracting(Added::duplicate).containsExactly(false, true, true, false);
        assertThat(answers.get(1).job().id()).isEqualTo("held");
        assertThat(answers.get(1).job().payload()).isEqualTo("old");
        assertThat(answers.get(2).job().id()).isEqualTo("x");
        assertThat(answers.get(2).job().payload()).isEqualTo("x1");
        assertThat(job(queue, "x").payload()).isEqualTo("x1");
        assertThat(job(queue, "held").payload()).isEqualTo("old");
        assertThat(queue.counts()).isEqualTo(counts(3, 0, 0, 0, 0));
    }

    @Test
    void emptyBulkAddsNothing() {
        JobQueue<String> queue = newQueue();
        assertThat(queue.addBulk(List.of())).isEmpty();
        assertThat(queue.counts().total()).isZero();
    }

    @Test
    void waitingJobsAreListedInRunOrderWithinTheirGroup() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("low").priority(0).build());
        queue.add("n", "p", id("high").priority(9).build());
        queue.add("n", "p", id("mid1").priority(5).build());
        queue.add("n", "p", id("low2").priority(0).build());
        queue.add("n", "p", id("mid2").priority(5).build());

        assertThat(ids(queue.jobs(JobState.WAITING, 0, 100))).containsExactly("high", "mid1", "mid2", "low", "low2");
        assertThat(ids(queue.jobs(JobState.WAITING, 1, 2))).containsExactly("mid1", "mid2");
        assertThat(ids(queue.jobs(JobState.WAITING, 4, 10))).containsExactly("low2");
        assertThat(queue.jobs(JobState.WAITING, 5, 10)).isEmpty();
        assertThat(queue.jobs(JobState.ACTIVE, 0, 10)).isEmpty();

        List<String> ran = new ArrayList<>();
        manualWorker(queue, recording(ran)).runDue();
        assertThat(ran).containsExactly("high", "mid1", "mid2", "low", "low2");
    }

    @Test
    void waitingJobsOfSeveralGroupsAreListedGroupAfterGroup() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", id("a2").group("a").priority(3).build());
        queue.add("n", "p", inGroup("b2", "b"));
        queue.add("n", "p", inGroup("a3", "a"));

        List<String> listed = ids(queue.jobs(JobState.WAITING, 0, 100));

        assertThat(listed).containsExactlyInAnyOrder("a1", "a2", "a3", "b1", "b2");
        List<String> groupA = listed.stream().filter(id -> id.startsWith("a")).toList();
        List<String> groupB = listed.stream().filter(id -> id.startsWith("b")).toList();
        assertThat(groupA).containsExactly("a2", "a1", "a3");
        assertThat(groupB).containsExactly("b1", "b2");
        int firstB = listed.indexOf(groupB.get(0));
        assertThat(listed.subList(firstB, firstB + 2))
                .as("groups come one after another in %s", listed)
                .containsExactlyElementsOf(groupB);
    }

    @Test
    void delayedJobsAreListedSoonestFirst() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("3s").delay(Duration.ofSeconds(3)).build());
        queue.add("n", "p", id("1s").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", id("2s").delay(Duration.ofSeconds(2)).build());

        assertThat(ids(queue.jobs(JobState.DELAYED, 0, 10))).containsExactly("1s", "2s", "3s");
        assertThat(queue.jobs(JobState.DELAYED, 0, 10))
                .extracting(Job::runAt)
                .containsExactly(atMillis(1_000), atMillis(2_000), atMillis(3_000));
        assertThat(ids(queue.jobs(JobState.DELAYED, 2, 1))).containsExactly("3s");
    }

    @Test
    void finishedJobsAreListedMostRecentlyFinishedFirst() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        finishFiveJobsOneSecondApart(queue);

        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c3", "c2", "c1");
        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("f2", "f1");
        assertThat(ids(queue.jobs(JobState.COMPLETED, 1, 1))).containsExactly("c2");
        assertThat(queue.jobs(JobState.COMPLETED, 0, 10))
                .extracting(Job::finishedAt)
                .containsExactly(atMillis(5_000), atMillis(3_000), atMillis(1_000));
    }

    @Test
    void activeJobsAreListedOldestStartFirst() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 3);
        for (String id : List.of("first", "second", "third")) {
            queue.add("n", "p", withId(id));
            eventually().until(() -> blocker.entered.contains(id));
            clock.advance(Duration.ofSeconds(1));
        }

        List<Job<String>> active = queue.jobs(JobState.ACTIVE, 0, 10);
        assertThat(ids(active)).containsExactly("first", "second", "third");
        assertThat(active).extracting(Job::startedAt).containsExactly(atMillis(0), atMillis(1_000), atMillis(2_000));
        assertThat(ids(queue.jobs(JobState.ACTIVE, 1, 1))).containsExactly("second");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 3, 0, 0));

        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 3);
    }

    @Test
    void listingPagesThroughTwentyThousandJobs() {
        JobQueue<String> queue = newQueue();
        List<NewJob<String>> jobs = IntStream.range(0, 20_000)
                .mapToObj(i -> new NewJob<>("n", "p", withId("j" + i)))
                .toList();
        queue.addBulk(jobs);

        List<String> listed = new ArrayList<>();
        for (int offset = 0; offset < 20_000; offset += 10_000) {
            listed.addAll(ids(queue.jobs(JobState.WAITING, offset, 10_000)));
        }
        assertThat(listed).hasSize(20_000);
        assertThat(listed.get(0)).isEqualTo("j0");
        assertThat(listed.get(19_999)).isEqualTo("j19999");
        assertThat(new HashSet<>(listed)).hasSize(20_000);
    }

    @Test
    void removedListenerHearsNothingMore() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("a"));
        told(queue);
        assertThat(queue.removeListener(events)).isTrue();
        assertThat(queue.removeListener(events)).isFalse();
        queue.add("n", "p", withId("b"));
        told(queue);
        assertThat(events.log).containsExactly("added a");
    }

    @Test
    void removingSeveralListenersLeavesExactlyTheOthers() {
        JobQueue<String> queue = newQueue();
        List<Events> listeners = List.of(new Events(), new Events(), new Events(), new Events());
        listeners.forEach(queue::addListener);
        queue.add("n", "p", withId("a"));
        told(queue);

        assertThat(queue.removeListener(listeners.get(1))).isTrue();
        assertThat(queue.removeListener(listeners.get(3))).isTrue();
        assertThat(queue.removeListener(listeners.get(0))).isTrue();
        assertThat(queue.removeListener(listeners.get(0))).isFalse();
        queue.add("n", "p", withId("b"));
        told(queue);

        assertThat(listeners.get(0).log).containsExactly("added a");
        assertThat(listeners.get(1).log).containsExactly("added a");
        assertThat(listeners.get(2).log).containsExactly("added a", "added b");
        assertThat(listeners.get(3).log).containsExactly("added a");
        assertThat(queue.removeListener(listeners.get(2))).isTrue();
        queue.add("n", "p", withId("c"));
        told(queue);
        assertThat(listeners.get(2).log).containsExactly("added a", "added b");
    }

    @Test
    void theSameQueueIsReturnedForTheSameName() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        JobQueue<String> again = engine.queue(
                QUEUE, Codec.utf8(), QueueOptions.builder().maxQueued(5).build());
        assertThat(again.name()).isEqualTo(QUEUE);
        assertThat(again.job("j")).isPresent();
        assertThat(again.options().maxQueued()).isEqualTo(QueueOptions.DEFAULT_MAX_QUEUED);
        assertThat(engine.queue("other", Codec.utf8()).job("j")).isEmpty();
    }

    @Test
    void queueReportsTheOptionsItWasCreatedWith() {
        QueueOptions options =
                QueueOptions.builder().maxQueued(42).concurrency(7).build();
        JobQueue<String> queue = newQueue(options);
        assertThat(queue.options()).isEqualTo(options);
        assertThatThrownBy(() -> engine.queue(QUEUE, Codec.bytes()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(QUEUE);
    }
}
