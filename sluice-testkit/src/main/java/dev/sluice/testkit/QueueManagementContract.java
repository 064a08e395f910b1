package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Managing a queue's jobs: pause and resume, remove, retry, clean, drain. */
public abstract class QueueManagementContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueManagementContract() {}

    private JobQueue<String> keepingEverything() {
        return newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()).keepFailed(Retention.keepAll()));
    }

    @Test
    void pausedQueueStartsNothingButAcceptsAdds() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.add("n", "p", withId("before"));

        queue.pause();
        assertThat(queue.isPaused()).isTrue();
        queue.add("n", "p", withId("during"));
        assertThat(worker.runDue()).isZero();
        assertThat(ran).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 0, 0));

        queue.resume();
        assertThat(queue.isPaused()).isFalse();
        assertThat(worker.runDue()).isEqualTo(2);
        assertThat(ran).containsExactly("before", "during");
    }

    @Test
    void pauseStopsAStartedWorkerAndResumeWakesIt() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        queue.pause();
        startedWorker(queue, recording(ran), 4);
        for (int i = 0; i < 10; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        assertThat(queue.counts().waiting()).isEqualTo(10);

        queue.resume();

        eventually().until(() -> queue.counts().completed() == 10);
        assertThat(ran).hasSize(10).doesNotHaveDuplicates();
    }

    @Test
    void pauseLetsTheRunningJobFinish() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            queue.pause();
            return Result.done();
        });
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));

        assertThat(worker.runDue()).isEqualTo(1);

        assertThat(ran).containsExactly("a");
        assertThat(stateOf(queue, "a")).isEqualTo(JobState.COMPLETED);
        assertThat(stateOf(queue, "b")).isEqualTo(JobState.WAITING);
    }

    @Test
    void removeUnknownJobReturnsFalse() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        assertThat(queue.remove("unknown")).isFalse();
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void removeTakesWaitingDelayedCompletedAndFailedJobs() {
        JobQueue<String> queue = keepingEverything();
        queue.add("ok", "p", withId("completed"));
        queue.add("fail", "p", withId("failed"));
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done();
                })
                .runDue();
        queue.add("n", "p", withId("waiting"));
        queue.add("n", "p", id("delayed").delay(Duration.ofSeconds(1)).build());
        assertThat(queue.counts()).isEqualTo(counts(1, 1, 0, 1, 1));

        for (String id : List.of("waiting", "delayed", "completed", "failed")) {
            assertThat(queue.remove(id)).as("remove %s", id).isTrue();
            assertThat(queue.job(id)).as("job %s", id).isEmpty();
            assertThat(queue.remove(id)).as("remove %s again", id).isFalse();
        }
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));

        clock.advance(Duration.ofSeconds(2));
        assertThat(queue.counts())
                .as("a removed delayed job does not come back")
                .isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void removeActiveJobThrowsAndLeavesItRunning() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("busy"));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<JobState> stateAfter = new AtomicReference<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            try {
                queue.remove("busy");
            } catch (Throwable t) {
                thrown.set(t);
            }
            stateAfter.set(job(queue, "busy").state());
            return Result.done();
        });

        worker.runDue();

        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("busy");
        assertThat(stateAfter.get()).isEqualTo(JobState.ACTIVE);
        assertThat(stateOf(queue, "busy")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void retryUnknownJobThrowsJobNotFound() {
        JobQueue<String> queue = newQueue();
        assertThatThrownBy(() -> queue.retry("ghost"))
                .isInstanceOf(JobNotFoundException.class)
                .hasMessageContaining("ghost")
                .hasMessageContaining(QUEUE)
                .satisfies(e -> assertThat(((JobNotFoundException) e).jobId()).isEqualTo("ghost"));
    }

    @Test
    void retryOfAJobThatIsNotFailedThrows() {
        JobQueue<String> queue = keepingEverything();
        queue.add("n", "p", withId("waiting"));
        queue.add("n", "p", id("delayed").delay(Duration.ofSeconds(1)).build());
        assertThatThrownBy(() -> queue.retry("waiting"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("waiting");
        assertThatThrownBy(() -> queue.retry("delayed")).isInstanceOf(IllegalStateException.class);
        manualWorker(queue, completing()).runDue();
        assertThatThrownBy(() -> queue.retry("waiting")).isInstanceOf(IllegalStateException.class);
        assertThat(stateOf(queue, "waiting")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void retrySendsAFailedJobBackWithFreshAttemptsKeepingItsHistory() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("j"));
        boolean[] healthy = {false};
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(100));
            if (!healthy[0]) {
                throw new Boom("down");
            }
            return Result.done("up");
        });
        assertThat(worker.runDue()).isEqualTo(2);
        Job<String> failed = job(queue, "j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.attemptsMade()).isEqualTo(2);

        queue.retry("j");

        Job<String> back = job(queue, "j");
        assertThat(back.state()).isEqualTo(JobState.WAITING);
        assertThat(back.attemptsMade()).isZero();
        assertThat(back.rateLimits()).isZero();
        assertThat(back.failure()).isNull();
        assertThat(back.finishedAt()).isNull();
        assertThat(back.attempts()).hasSize(2);

        healthy[0] = true;
        assertThat(worker.runDue()).isEqualTo(1);
        Job<String> done = job(queue, "j");
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.attemptsMade()).isEqualTo(1);
        assertThat(done.result()).isEqualTo("up");
        assertThat(done.attempts())
                .extracting(a -> a.outcome())
                .containsExactly(Outcome.FAILED, Outcome.FAILED, Outcome.COMPLETED);
        assertThat(done.attempts().get(2).startedAt()).isEqualTo(atMillis(200));
    }

    @Test
    void retryFailedSendsEveryFailedJobBack() {
        JobQueue<String> queue = keepingEverything();
        for (String id : List.of("f1", "ok", "f2", "f3")) {
            queue.add(id.startsWith("f") ? "fail" : "ok", "p", withId(id));
        }
        boolean[] healthy = {false};
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (!healthy[0] && ctx.job().name().equals("fail")) {
                throw new Boom("no");
            }
            return Result.done();
        });
        worker.runDue();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 1, 3));

        assertThat(queue.retryFailed()).isEqualTo(3);

        assertThat(queue.counts()).isEqualTo(counts(3, 0, 0, 1, 0));
        assertThat(queue.retryFailed()).isZero();
        healthy[0] = true;
        assertThat(worker.runDue()).isEqualTo(3);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 4, 0));
    }

    @Test
    void aJobThatFailsAgainAtTheSameInstantIsListedAndRetriedOnce() {
        // pins issue 9: two failures at one clock reading listed the job twice; retryFailed revived it twice
        JobQueue<String> queue = newQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            throw new Boom("no");
        });
        queue.add("fail", "p", withId("f"));
        worker.runDue();
        queue.retry("f");
        worker.runDue();

        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("f");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 1));
        assertThat(queue.retryFailed()).isEqualTo(1);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
        worker.runDue();
        assertThat(ran).containsExactly("f", "f", "f");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 1));
    }

    @Test
    void cleanRemovesFinishedJobsAtLeastThatOld() {
        JobQueue<String> queue = keepingEverything();
        finishFiveJobsOneSecondApart(queue);
        // finished: c1 at 1 s, f1 at 2 s, c2 at 3 s, f2 at 4 s, c3 at 5 s; now is 5 s
        assertThat(clock.instant()).isEqualTo(atMillis(5_000));

        assertThat(queue.clean(JobState.COMPLETED, Duration.ofSeconds(2))).isEqualTo(2);
        assertThat(queue.job("c1")).isEmpty();
        assertThat(queue.job("c2")).as("finished exactly 2 s ago").isEmpty();
        assertThat(queue.job("c3")).isPresent();
        assertThat(queue.job("f1")).as("clean(COMPLETED) leaves failed jobs").isPresent();

        assertThat(queue.clean(JobState.FAILED, Duration.ofMillis(1_001))).isEqualTo(1);
        assertThat(queue.job("f1")).isEmpty();
        assertThat(queue.job("f2")).isPresent();

        assertThat(queue.clean(JobState.FAILED, Duration.ZERO)).isEqualTo(1);
        assertThat(queue.clean(JobState.COMPLETED, Duration.ZERO)).isEqualTo(1);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void cleanLeavesUnfinishedJobs() {
        JobQueue<String> queue = keepingEverything();
        queue.add("n", "p", withId("w"));
        queue.add("n", "p", id("d").delay(Duration.ofSeconds(1)).build());
        clock.advance(Duration.ofHours(1));
        assertThat(queue.clean(JobState.COMPLETED, Duration.ZERO)).isZero();
        assertThat(queue.clean(JobState.FAILED, Duration.ZERO)).isZero();
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 0, 0));
    }

    @Test
    void drainRemovesWaitingJobsOnly() {
        JobQueue<String> queue = keepingEverything();
        queue.add("n", "p", withId("done"));
        manualWorker(queue, completing()).runDue();
        queue.add("n", "p", withId("w1"));
        queue.add("n", "p", inGroup("w2", "g"));
        queue.add("n", "p", id("d1").delay(Duration.ofSeconds(1)).build());

        assertThat(queue.drain(false)).isEqualTo(2);

        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 1, 0));
        assertThat(queue.job("w1")).isEmpty();
        assertThat(queue.job("d1")).isPresent();
        clock.advance(Duration.ofSeconds(1));
        assertThat(stateOf(queue, "d1")).isEqualTo(JobState.WAITING);
    }

    @Test
    void drainWithDelayedRemovesDelayedJobsToo() {
        JobQueue<String> queue = keepingEverything();
        queue.add("n", "p", withId("w1"));
        queue.add("n", "p", id("d1").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", id("d2").delay(Duration.ofSeconds(2)).group("g").build());

        assertThat(queue.drain(true)).isEqualTo(3);

        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
        clock.advance(Duration.ofSeconds(5));
        assertThat(queue.counts()).as("drained delayed jobs do not come back").isEqualTo(counts(0, 0, 0, 0, 0));
        List<String> ran = new ArrayList<>();
        assertThat(manualWorker(queue, recording(ran)).runDue()).isZero();
    }

    @Test
    void drainLeavesTheActiveJob() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("active"));
        queue.add("n", "p", withId("waiting"));
        AtomicReference<Integer> drained = new AtomicReference<>();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (drained.get() == null) {
                drained.set(queue.drain(true));
            }
            return Result.done();
        });

        worker.runDue();

        assertThat(drained.get()).isEqualTo(1);
        assertThat(ran).containsExactly("active");
        assertThat(stateOf(queue, "active")).isEqualTo(JobState.COMPLETED);
        assertThat(queue.job("waiting")).isEmpty();
    }

    @Test
    void optionsReadTheLimitsAsTheyAreNowAndTheRestAsOpened() {
        JobOptions jobDefaults = JobOptions.builder().attempts(4).build();
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .maxQueued(50)
                .rate(TokenBucket.perSecond(5))
                .concurrency(3)
                .jobDefaults(jobDefaults)
                .build());
        GroupLimits defaults = new GroupLimits(FixedWindow.of(2, Duration.ofSeconds(1)), 1, 7);

        queue.setRate(SlidingWindowLog.of(9, Duration.ofSeconds(1)));
        queue.setConcurrency(12);
        queue.setGroupDefaults(defaults);

        QueueOptions now = queue.options();
        assertThat(now.rate()).isEqualTo(SlidingWindowLog.of(9, Duration.ofSeconds(1)));
        assertThat(now.concurrency()).isEqualTo(12);
        assertThat(now.groupDefaults()).isEqualTo(defaults);
        assertThat(now.maxQueued()).isEqualTo(50);
        assertThat(now.jobDefaults().attempts()).isEqualTo(4);

        queue.setRate(null);
        queue.setConcurrency(Integer.MAX_VALUE);
        queue.setGroupDefaults(GroupLimits.none());
        assertThat(queue.options().rate()).isNull();
        assertThat(queue.options().concurrency()).isEqualTo(Integer.MAX_VALUE);
        assertThat(queue.options().groupDefaults()).isEqualTo(GroupLimits.none());
    }

    @Test
    void optionsSeeLimitsAnotherHandleOfTheQueueSet() {
        JobQueue<String> queue = newQueue();
        JobQueue<String> again = engine.queue(QUEUE, dev.sluice.queue.Codec.utf8());

        again.setConcurrency(2);

        assertThat(queue.options().concurrency()).isEqualTo(2);
    }
}
