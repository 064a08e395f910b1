package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Listener events: added, active, progress, completed, retrying, failed, rate-limited and drained, told after the
 * change on a thread of the queue's own, in the order the changes happened (across threads too), with the job as it
 * is after the change; {@code awaitListeners} and an engine's close wait for them.
 */
public abstract class QueueListenerContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueListenerContract() {}

    @Test
    void retriedThenCompletedJobHeardInOrder() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().attempts(2).backoff(Backoff.fixed(Duration.ofSeconds(1))));
        Events events = new Events();
        queue.addListener(events);
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() == 1) {
                ctx.progress(50);
                throw new Boom("boom");
            }
            ctx.progress(100);
            return Result.done("ok");
        });

        queue.add("n", "p", withId("j"));
        worker.runDue();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();

        told(queue);
        assertThat(events.log)
                .containsExactly(
                        "added j",
                        "active j",
                        "progress j 50",
                        "retrying j boom PT1S",
                        "active j",
                        "progress j 100",
                        "completed j",
                        "drained");
        assertThat(events.snapshots.get(0).state()).isEqualTo(JobState.WAITING);
        Job<String> firstActive = events.snapshots.get(1);
        assertThat(firstActive.state()).isEqualTo(JobState.ACTIVE);
        assertThat(firstActive.attemptsMade()).isZero();
        assertThat(firstActive.startedAt()).isEqualTo(START);
        assertThat(events.snapshots.get(2).progress()).isEqualTo(50);
        Job<String> retrying = events.snapshotOf("retrying j boom PT1S");
        assertThat(retrying.state()).isEqualTo(JobState.DELAYED);
        assertThat(retrying.runAt()).isEqualTo(atMillis(1_000));
        assertThat(retrying.attemptsMade()).isEqualTo(1);
        assertThat(events.snapshots.get(4).attemptsMade()).isEqualTo(1);
        Job<String> completed = events.snapshotOf("completed j");
        assertThat(completed.state()).isEqualTo(JobState.COMPLETED);
        assertThat(completed.result()).isEqualTo("ok");
        assertThat(completed.finishedAt()).isEqualTo(atMillis(1_000));
        assertThat(events.snapshots.get(7)).isNull();
    }

    @Test
    void failedJobHeardWithItsFailure() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));

        manualWorker(queue, throwing("fatal")).runDue();

        told(queue);
        assertThat(events.log).containsExactly("added j", "active j", "failed j", "drained");
        Job<String> failed = events.snapshotOf("failed j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failure().reason()).isEqualTo("fatal");
    }

    @Test
    void retryWithoutBackoffIsHeardWithAZeroDelay() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));

        manualWorker(queue, throwing("again")).runDue();

        told(queue);
        assertThat(events.log)
                .containsExactly("added j", "active j", "retrying j again PT0S", "active j", "failed j", "drained");
        assertThat(events.snapshotOf("retrying j again PT0S").state()).isEqualTo(JobState.WAITING);
    }

    @Test
    void rateLimitedJobHeardWithScopeAndRetryAfter() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", inGroup("j", "g"));

        manualWorker(queue, ctx -> Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(5)))
                .runDue();

        told(queue);
        assertThat(events.log).containsExactly("added j", "active j", "rate-limited j GROUP PT5S");
        Job<String> limited = events.snapshotOf("rate-limited j GROUP PT5S");
        assertThat(limited.state()).isEqualTo(JobState.WAITING);
        assertThat(limited.rateLimits()).isEqualTo(1);
    }

    @Test
    void drainedIsHeardOnlyWhenNothingIsLeft() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));
        queue.add("n", "p", id("later").delay(Duration.ofSeconds(1)).build());
        Worker<String> worker = manualWorker(queue, completing());

        worker.runDue();
        told(queue);
        assertThat(events.log).doesNotContain("drained");

        clock.advance(Duration.ofSeconds(1));
        worker.runDue();
        told(queue);
        assertThat(events.log).containsOnlyOnce("drained");
        assertThat(events.log.get(events.log.size() - 1)).isEqualTo("drained");
        assertThat(events.log.get(events.log.size() - 2)).isEqualTo("completed later");
    }

    @Test
    void duplicateAddIsNotHeard() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));
        queue.add("n", "p", withId("j"));
        told(queue);
        assertThat(events.log).containsExactly("added j");
    }

    @Test
    void eventsComeAfterTheChangeWithTheJobAsItWasThenAndTheListenerMayReadTheQueue() {
        JobQueue<String> queue = newQueue();
        List<String> seen = new CopyOnWriteArrayList<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                Optional<Job<String>> stored = queue.job(job.id());
                seen.add("added " + job.state() + " " + stored.isPresent());
            }

            @Override
            public void onActive(Job<String> job) {
                seen.add("active " + job.state() + " " + queue.job(job.id()).isPresent());
            }

            @Override
            public void onCompleted(Job<String> job) {
                JobCounts counts = queue.counts();
                seen.add("completed " + queue.job(job.id()).orElseThrow().state() + " " + counts.completed());
            }
        });

        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue();

        told(queue);
        assertThat(seen).containsExactly("added WAITING true", "active ACTIVE true", "completed COMPLETED 1");
    }

    @Test
    void listenersAreToldOnAThreadOfTheQueuesOwnSoThatAListenerThatBlocksHoldsUpNoCall() throws Exception {
        JobQueue<String> queue = newQueue();
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> tellers = new CopyOnWriteArrayList<>();
        queue.addListener(blockingOnAdded(release, id -> tellers.add(Thread.currentThread())));

        queue.add("n", "p", withId("a")); // its listener blocks: the add returns all the same
        queue.add("n", "p", withId("b"));
        manualWorker(queue, completing()).runDue();

        assertThat(stateOf(queue, "b")).isEqualTo(JobState.COMPLETED);
        assertThat(queue.awaitListeners(Duration.ofMillis(20)))
                .as("not told while a listener blocks")
                .isFalse();
        release.countDown();
        told(queue);
        assertThat(tellers).hasSize(2).doesNotContain(Thread.currentThread());
    }

    @Test
    void aListenerThatAwaitsTheListenersIsRefusedRatherThanWaitingForItself() {
        JobQueue<String> queue = newQueue();
        List<Throwable> thrown = new CopyOnWriteArrayList<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                try {
                    queue.awaitListeners(Duration.ofSeconds(10));
                } catch (Throwable e) {
                    thrown.add(e);
                }
            }
        });

        queue.add("n", "p", withId("j"));

        told(queue);
        assertThat(thrown)
                .singleElement()
                .isInstanceOf(IllegalStateException.class)
                .extracting(Throwable::getMessage)
                .asString()
                .contains("awaitListeners", "listener");
    }

    @Test
    void anEnginesCloseWaitsForItsListenersToHearWhatHappenedBefore() {
        JobQueue<String> queue = newQueue();
        CountDownLatch release = new CountDownLatch(1);
        Events events = new Events();
        queue.addListener(blockingOnAdded(release, id -> true));
        queue.addListener(events);
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));

        Async<Void> closing = async(() -> {
            engine.close();
            return null;
        });
        eventually().until(closing::isParked);
        assertThat(closing.future())
                .as("the close waits while a listener has not heard it all")
                .isNotDone();
        release.countDown();
        closing.future().join();

        assertThat(events.log).containsExactly("added a", "added b");
    }

    @Test
    void aListenerAddedAfterAChangeDoesNotHearItThoughItWasNotToldYet() {
        JobQueue<String> queue = newQueue();
        CountDownLatch release = new CountDownLatch(1);
        queue.addListener(blockingOnAdded(release, id -> id.equals("first")));
        queue.add("n", "p", withId("first")); // its listener blocks: what follows waits to be told
        queue.add("n", "p", withId("before"));
        Events later = new Events();

        queue.addListener(later);
        queue.add("n", "p", withId("after"));
        release.countDown();

        told(queue);
        assertThat(later.log).containsExactly("added after");
    }

    @Test
    void aListenerMayCloseTheEngineWithoutWaitingForItself() {
        JobQueue<String> queue = newQueue();
        List<Throwable> thrown = new CopyOnWriteArrayList<>();
        CountDownLatch closed = new CountDownLatch(1);
        queue.addListener(new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                try {
                    engine.close();
                } catch (Throwable e) {
                    thrown.add(e);
                }
                closed.countDown();
            }
        });

        queue.add("n", "p", withId("j"));

        eventually().until(() -> closed.getCount() == 0);
        assertThat(thrown).as("what the close threw").isEmpty();
        assertThatThrownBy(queue::counts).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void eventsOfEveryJobArriveInTheOrderItsChangesHappenedAcrossThreads() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        Events events = new Events();
        queue.addListener(events);
        startedWorker(
                queue,
                ctx -> {
                    ctx.progress(40);
                    return Result.done();
                },
                8);
        int jobs = 2_000;
        List<Async<Void>> producers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            int producer = p;
            producers.add(async(() -> {
                for (int i = 0; i < jobs / 2; i++) {
                    queue.add("n", "p", withId(producer + "-" + i));
                }
                return null;
            }));
        }
        producers.forEach(a -> a.future().join());
        eventually().untilAsserted(() -> assertThat(queue.stats().completed()).isEqualTo(jobs));
        eventually()
                .untilAsserted(() -> assertThat(events.log.stream()
                                .filter(e -> e.startsWith("completed"))
                                .count())
                        .isEqualTo(jobs));

        Map<String, List<String>> perJob = new HashMap<>();
        for (String event : events.log) {
            String[] parts = event.split(" ");
            if (parts.length > 1) {
                perJob.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(parts[0]);
            }
        }
        assertThat(perJob).hasSize(jobs);
        perJob.forEach((id, seen) -> assertThat(seen)
                .as("events of job %s", id)
                .containsExactly("added", "active", "progress", "completed"));
    }

    /**
     * A listener that, told a job was added, blocks until {@code release} opens if {@code blocksFor} says so of the
     * job's id (it may note the call).
     */
    private static QueueListener<String> blockingOnAdded(CountDownLatch release, Predicate<String> blocksFor) {
        return new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                if (!blocksFor.test(job.id())) {
                    return;
                }
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** A listener that runs {@code bug} (which throws) on added, active and completed. */
    private static QueueListener<String> throwingOnEveryEvent(Runnable bug) {
        return new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                bug.run();
            }

            @Override
            public void onActive(Job<String> job) {
                bug.run();
            }

            @Override
            public void onCompleted(Job<String> job) {
                bug.run();
            }
        };
    }

    @Test
    void aThrowingListenerDoesNotDisturbTheQueueOrOtherListeners() {
        JobQueue<String> queue = newQueue();
        queue.addListener(throwingOnEveryEvent(() -> {
            throw new IllegalStateException("listener bug");
        }));
        Events events = new Events();
        queue.addListener(events);

        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue();

        assertThat(stateOf(queue, "j")).isEqualTo(JobState.COMPLETED);
        told(queue);
        assertThat(events.log).containsExactly("added j", "active j", "completed j", "drained");
    }

    @Test
    void aListenerThrowingAnErrorDisturbsNeitherTheCallerNorAWorkersThread() {
        // pins issue 9: only RuntimeExceptions were caught; an Error reached add() and killed a worker's slot
        JobQueue<String> queue = newQueue();
        queue.addListener(throwingOnEveryEvent(() -> {
            throw new AssertionError("listener bug");
        }));
        Events events = new Events();
        queue.addListener(events);
        startedWorker(queue, completing(), 1);

        queue.add("n", "p", withId("a"));
        eventually().until(() -> stateOf(queue, "a") == JobState.COMPLETED);
        queue.add("n", "p", withId("b"));

        eventually().until(() -> stateOf(queue, "b") == JobState.COMPLETED);
        eventually().until(() -> events.log.size() == 8);
        assertThat(events.log)
                .containsExactly(
                        "added a",
                        "active a",
                        "completed a",
                        "drained",
                        "added b",
                        "active b",
                        "completed b",
                        "drained");
    }

    @Test
    void afterAwaitIdleAwaitListenersReturnsOnlyOnceEveryCompletionOfARunningWorkerWasHeard() throws Exception {
        JobQueue<String> queue = newQueue();
        List<String> completed = new CopyOnWriteArrayList<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onCompleted(Job<String> job) {
                completed.add(job.id());
            }
        });
        startedWorker(queue, completing(), 4);
        int rounds = 30;
        int perRound = 10;
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < perRound; i++) {
                queue.add("n", "p");
            }
            assertThat(queue.awaitIdle(Duration.ofSeconds(10))).isTrue();
            told(queue);
            assertThat(completed)
                    .as("completions heard after round %d had finished", round)
                    .hasSize(round * perRound);
        }
    }

    @Test
    void everyListenerHearsEveryEvent() {
        JobQueue<String> queue = newQueue();
        Events first = new Events();
        Events second = new Events();
        queue.addListener(first);
        queue.addListener(second);
        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue();
        told(queue);
        assertThat(second.log).isEqualTo(first.log).hasSize(4);
    }

    @Test
    void listenersAndOutcomeCallbacksMayAddJobsWhileTheyAreToldWithoutStallingEachOther() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        int links = 20;
        List<String> heard = new CopyOnWriteArrayList<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onCompleted(Job<String> job) {
                if (job.name().equals("heard")) {
                    heard.add(job.payload());
                    int n = Integer.parseInt(job.payload());
                    if (n < links) {
                        queue.add("heard", Integer.toString(n + 1));
                    }
                }
            }
        });
        List<String> finished = new CopyOnWriteArrayList<>();
        startedWorker(queue, completing(), 1);

        chainOfOutcomes(queue, 1, links, finished);
        queue.add("heard", "1");

        eventually().untilAsserted(() -> assertThat(finished).hasSize(links));
        eventually().untilAsserted(() -> assertThat(heard).hasSize(links));
        assertThat(finished).containsExactlyElementsOf(chain(links));
        assertThat(heard).containsExactlyElementsOf(chain(links));
    }

    private static List<String> chain(int links) {
        return java.util.stream.IntStream.rangeClosed(1, links)
                .mapToObj(Integer::toString)
                .toList();
    }

    /** Adds link {@code n} of a chain whose each job's outcome callback adds the next, up to {@code last}. */
    private static void chainOfOutcomes(JobQueue<String> queue, int n, int last, List<String> finished) {
        String id = queue.add("awaited", Integer.toString(n)).job().id();
        queue.whenFinished(id).thenAccept(job -> {
            finished.add(job.payload());
            if (n < last) {
                chainOfOutcomes(queue, n + 1, last, finished);
            }
        });
    }
}
