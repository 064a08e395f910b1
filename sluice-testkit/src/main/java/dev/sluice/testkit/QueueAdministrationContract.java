package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.Gcra;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * What tools that manage queues they did not create rely on (the command line, the dashboard): listing the engine's
 * queues, opening one that exists without creating any, the workers attached to a queue, promoting a delayed job, and
 * removing a queue whole.
 */
public abstract class QueueAdministrationContract extends QueueContractSupport {
    /** For subclasses, one per engine. */
    protected QueueAdministrationContract() {}

    private static final Duration HOUR = Duration.ofHours(1);

    @Test
    void theEngineListsItsQueuesByNameAndAskingForOneThatDoesNotExistCreatesNothing() {
        assertThat(engine.queueNames()).isEmpty();
        engine.queue("mail", Codec.utf8());
        engine.queue("billing", Codec.bytes());
        engine.queue("mail", Codec.utf8());

        assertThat(engine.existingQueue("typo")).isEmpty();
        assertThat(engine.queueNames()).containsExactly("billing", "mail");
    }

    @Test
    void anExistingQueueIsTheOneTheEngineHoldsWithItsCodec() {
        JobQueue<String> mail = engine.queue("mail", Codec.utf8());
        mail.add("welcome", "ada@example.com", withId("w1"));

        JobQueue<?> found = engine.existingQueue("mail").orElseThrow();

        assertThat(found.name()).isEqualTo("mail");
        assertThat(found.codec().name()).isEqualTo(Codec.utf8().name());
        assertThat(found.counts().waiting()).isEqualTo(1);
        assertThat(found.payloadBytes("w1"))
                .hasValueSatisfying(bytes -> assertThat(new String(bytes)).isEqualTo("ada@example.com"));
    }

    @Test
    void aMalformedQueueNameIsRefusedWithTheAllowedCharacters() {
        assertThatThrownBy(() -> engine.existingQueue("no spaces"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'no spaces'")
                .hasMessageContaining("letters, digits");
        assertThatThrownBy(() -> engine.existingQueue(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pagesOfWaitingJobsAcrossGroupsAddUpToTheWholeListWhateverTheirSize() {
        JobQueue<String> queue = newQueue();
        int[] sizes = {3, 1, 4, 2};
        for (int g = 0; g < sizes.length; g++) {
            for (int i = 0; i < sizes[g] + 1; i++) {
                queue.add("n", "p", inGroup("g" + g + "-" + i, "g" + g));
            }
            queue.remove("g" + g + "-0"); // a removed job inside each group must not count
        }
        queue.add("n", "p", withId("ungrouped"));
        List<String> whole = ids(queue.jobs(JobState.WAITING, 0, 100));
        assertThat(whole).hasSize(11).doesNotHaveDuplicates();

        for (int limit = 1; limit <= 4; limit++) {
            List<String> paged = new ArrayList<>();
            for (int offset = 0; offset < 12; offset += limit) {
                paged.addAll(ids(queue.jobs(JobState.WAITING, offset, limit)));
            }
            assertThat(paged).as("pages of %d", limit).isEqualTo(whole);
        }
        assertThat(queue.jobs(JobState.WAITING, 11, 5)).isEmpty();
    }

    // ---------------------------------------------------------------------------------------------- promote

    @Test
    void aPromotedJobRunsNowInsteadOfAfterItsDelay() {
        JobQueue<String> queue = newQueue();
        queue.add("later", "p", JobOptions.builder().jobId("d").delay(HOUR).build());
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        assertThat(worker.runDue()).isZero();

        queue.promote("d");

        assertThat(stateOf(queue, "d")).isEqualTo(JobState.WAITING);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(ran).containsExactly("d");
    }

    @Test
    void onlyADelayedJobCanBePromotedAndARefusalChangesNothing() {
        JobQueue<String> queue = newQueue();
        queue.add("now", "p", withId("w"));

        assertThatThrownBy(() -> queue.promote("w"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'w'")
                .hasMessageContaining("WAITING")
                .hasMessageContaining("only a DELAYED job");
        assertThatThrownBy(() -> queue.promote("nope")).isInstanceOf(JobNotFoundException.class);
        assertThatThrownBy(() -> queue.promote(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void aPromotedRunOfARepeatableJobIsFollowedByItsNextRun() {
        JobQueue<String> queue = newQueue();
        queue.repeat("hourly", Schedule.fixedRate(HOUR), new NewJob<>("tick", "p"));
        Job<String> next = queue.jobs(JobState.DELAYED, 0, 10).get(0);
        assertThat(next.runAt()).isEqualTo(START.plus(HOUR));

        queue.promote(next.id());

        assertThat(stateOf(queue, next.id())).isEqualTo(JobState.WAITING);
        eventually()
                .untilAsserted(() -> assertThat(queue.jobs(JobState.DELAYED, 0, 10))
                        .singleElement()
                        .satisfies(after -> {
                            assertThat(after.id()).isNotEqualTo(next.id());
                            assertThat(after.runAt()).isEqualTo(START.plus(HOUR.multipliedBy(2)));
                        }));
    }

    @Test
    void aClosedEngineRefusesToListOrOpenQueues() {
        engine.queue("mail", Codec.utf8());
        engine.close();

        assertThatThrownBy(engine::queueNames).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> engine.existingQueue("mail")).isInstanceOf(IllegalStateException.class);
    }

    // ---------------------------------------------------------------------------------------------- group pauses

    @Test
    void aPausedGroupStartsNothingUntilResumedWhileTheOthersRun() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "acme"));
        queue.add("n", "p", inGroup("b1", "beta"));
        queue.add("n", "p", withId("u1"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        queue.pauseGroup("acme");
        assertThat(worker.runDue()).isEqualTo(2);
        assertThat(ran).containsExactlyInAnyOrder("b1", "u1");
        assertThat(stateOf(queue, "a1")).isEqualTo(JobState.WAITING);

        assertThat(queue.resumeGroup("acme")).isTrue();
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(ran).contains("a1");
        assertThat(queue.resumeGroup("acme")).as("no pause left").isFalse();
        assertThat(queue.resumeGroup("never-seen")).isFalse();
    }

    @Test
    void aPauseHoldsForAGroupWithoutJobsAndForTheUngroupedJobs() {
        JobQueue<String> queue = newQueue();
        queue.pauseGroup("empty");
        queue.pauseGroup(null);
        queue.add("n", "p", inGroup("e1", "empty"));
        queue.add("n", "p", withId("u1"));
        Worker<String> worker = manualWorker(queue, completing());
        advanceMillis(60_000);

        assertThat(worker.runDue()).isZero();

        assertThat(queue.resumeGroup(null)).isTrue();
        assertThat(queue.resumeGroup("empty")).isTrue();
        assertThat(worker.runDue()).isEqualTo(2);
    }

    @Test
    void resumingAGroupEndsARateLimitedPauseNowAndItsRateRampsUpFromThen() {
        JobQueue<String> queue = newQueue();
        queue.setGroupLimits(
                "acme",
                GroupLimits.builder().rate(Gcra.of(8, Duration.ofSeconds(1), 8)).build());
        for (int i = 0; i < 12; i++) {
            queue.add("n", "p", inGroup("a" + i, "acme"));
        }
        boolean[] limited = {false};
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (!limited[0]) {
                limited[0] = true;
                return dev.sluice.queue.Result.rateLimited(dev.sluice.queue.Result.Scope.GROUP, HOUR);
            }
            return dev.sluice.queue.Result.done();
        });
        assertThat(worker.runDue())
                .as("the first is rate-limited, pausing the group for an hour")
                .isEqualTo(1);
        advanceMillis(10_000);
        assertThat(worker.runDue()).isZero();

        assertThat(queue.resumeGroup("acme")).isTrue();

        assertThat(worker.runDue())
                .as("a quarter of the burst of 8, not the backlog at once")
                .isEqualTo(2);
    }

    @Test
    void groupsComeInPagesByPrefixWithTheirStateAndLimits() {
        JobQueue<String> queue = newQueue();
        GroupLimits own = GroupLimits.builder().concurrency(2).build();
        queue.setGroupLimits("acme-2", own);
        for (String group : List.of("acme-1", "acme-2", "acme-3", "beta", "acme-4")) {
            queue.add("n", "p", inGroup(group + "-job", group));
        }
        queue.add("n", "p", JobOptions.builder().group("acme-3").delay(HOUR).build());
        queue.pauseGroup("acme-4");

        List<GroupInfo> first = queue.groups("acme-", null, 2);
        List<GroupInfo> second = queue.groups("acme-", first.get(1).name(), 2);
        List<GroupInfo> last = queue.groups("acme-", second.get(1).name(), 2);

        assertThat(first).extracting(GroupInfo::name).containsExactly("acme-1", "acme-2");
        assertThat(second).extracting(GroupInfo::name).containsExactly("acme-3", "acme-4");
        assertThat(last).isEmpty();
        assertThat(queue.groups("", null, 1_000))
                .extracting(GroupInfo::name)
                .containsExactly("acme-1", "acme-2", "acme-3", "acme-4", "beta");

        GroupInfo acme2 = first.get(1);
        assertThat(acme2.limits()).isEqualTo(own);
        assertThat(acme2.ownLimits()).isTrue();
        assertThat(first.get(0).ownLimits()).isFalse();
        assertThat(first.get(0).limits()).isEqualTo(queue.options().groupDefaults());
        GroupInfo acme3 = second.get(0);
        assertThat(List.of(acme3.waiting(), acme3.delayed(), acme3.active())).containsExactly(1L, 1L, 0L);
        assertThat(acme3.mayStart(START)).isTrue();
        GroupInfo acme4 = second.get(1);
        assertThat(acme4.paused()).isTrue();
        assertThat(acme4.pausedUntil()).isNull();
        assertThat(acme4.mayStart(START)).isFalse();
    }

    @Test
    void aGroupPausedByARateLimitedResultShowsWhenItsPauseEnds() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "acme"));
        queue.add("n", "p", inGroup("a2", "acme"));
        manualWorker(queue, ctx -> dev.sluice.queue.Result.rateLimited(dev.sluice.queue.Result.Scope.GROUP, HOUR))
                .runDue();

        GroupInfo acme = queue.groups("acme", null, 1).get(0);

        assertThat(acme.paused()).isFalse();
        assertThat(acme.pausedUntil()).isEqualTo(START.plus(HOUR));
        assertThat(acme.waiting()).isEqualTo(2);
        assertThat(acme.mayStart(START)).isFalse();
        assertThat(acme.mayStart(START.plus(HOUR))).isTrue();
    }

    @Test
    void aGroupPageIsCheckedBeforeAnythingIsRead() {
        JobQueue<String> queue = newQueue();
        assertThatThrownBy(() -> queue.groups(null, null, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix");
        assertThatThrownBy(() -> queue.groups("", null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 1000");
        assertThatThrownBy(() -> queue.groups("", null, 1_001)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMalformedGroupNameIsRefused() {
        JobQueue<String> queue = newQueue();
        assertThatThrownBy(() -> queue.pauseGroup("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.resumeGroup("")).isInstanceOf(IllegalArgumentException.class);
    }

    // ---------------------------------------------------------------------------------------------- workers

    @Test
    void aWorkerIsListedWithWhereItRunsItsConcurrencyAndItsRunningJobsUntilItCloses() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 3);
        eventually().until(() -> blocker.entered.size() == 1);

        List<WorkerInfo> workers = queue.workers();

        assertThat(workers).singleElement().satisfies(w -> {
            assertThat(w.id()).isNotBlank();
            assertThat(w.host()).isNotBlank();
            assertThat(w.pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(w.concurrency()).isEqualTo(3);
            assertThat(w.running()).containsExactly("j");
            assertThat(w.busy()).isEqualTo(1);
            assertThat(w.startedAt()).isEqualTo(START);
            assertThat(w.lastSeen()).isEqualTo(START);
            if (w.leaseEnds() != null) {
                assertThat(w.leaseEnds()).isAfter(START);
            }
        });

        blocker.releaseAll();
        awaitCompleted(queue, 1);
        worker.close();
        assertThat(queue.workers()).isEmpty();
    }

    @Test
    void twoWorkersAreTwoEntries() {
        JobQueue<String> queue = newQueue();
        startedWorker(queue, completing(), 1);
        startedWorker(queue, completing(), 2);

        assertThat(queue.workers()).extracting(WorkerInfo::concurrency).containsExactlyInAnyOrder(1, 2);
        assertThat(queue.workers()).extracting(WorkerInfo::id).doesNotHaveDuplicates();
    }

    // ---------------------------------------------------------------------------------------------- obliterate

    @Test
    void obliteratingIsRefusedWhileAWorkerIsAttachedAndChangesNothing() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", JobOptions.builder().jobId("d").delay(HOUR).build());
        startedWorker(queue, completing(), 1);

        assertThatThrownBy(() -> queue.obliterate(false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'" + QUEUE + "'")
                .hasMessageContaining("1 worker attached")
                .hasMessageContaining("force");
        assertThat(engine.queueNames()).containsExactly(QUEUE);
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
    }

    @Test
    void anObliteratedQueueIsGoneWholeAndOpensAnewEmpty() {
        JobQueue<String> queue = newQueue();
        queue.setGroupLimits("acme", GroupLimits.builder().concurrency(2).build());
        queue.setRate(Gcra.of(5, Duration.ofSeconds(1), 5));
        queue.repeat("hourly", Schedule.fixedRate(HOUR), new NewJob<>("tick", "p"));
        queue.add("n", "p", inGroup("w", "acme"));
        queue.add("n", "p", JobOptions.builder().jobId("d").delay(HOUR).build());
        manualWorker(queue, completing()).runDue();
        CompletableFuture<Job<String>> outcome = queue.whenFinished("d");

        queue.obliterate(false);

        assertThat(engine.queueNames()).doesNotContain(QUEUE);
        assertThat(engine.existingQueue(QUEUE)).isEmpty();
        assertThat(failureOf(outcome)).isInstanceOf(JobNotFoundException.class);
        assertThatThrownBy(queue::counts)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("obliterated");
        assertThatThrownBy(() -> queue.obliterate(true)).isInstanceOf(IllegalStateException.class);
        assertThat(queue.name()).isEqualTo(QUEUE);

        JobQueue<String> anew = newQueue();
        assertThat(anew).isNotSameAs(queue);
        assertThat(anew.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
        assertThat(anew.job("w")).isEmpty();
        assertThat(anew.repeatables()).isEmpty();
        assertThat(anew.options().rate()).isNull();
        assertThat(anew.groupLimits("acme")).isEqualTo(anew.options().groupDefaults());
        assertThat(anew.stats().added()).isZero();
        assertThat(anew.groups()).isEmpty();
    }

    @Test
    void aCallerWaitingForTheQueueToBeIdleHearsThatItWasObliterated() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", JobOptions.builder().delay(HOUR).build());
        Async<Boolean> waiting = async(() -> {
            try {
                return queue.awaitIdle(Duration.ofDays(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        eventually().until(waiting::isParked);

        queue.obliterate(false);

        assertThat(failureOf(waiting.future()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("obliterated");
    }

    @Test
    void aForcedObliterationClosesTheWorkersOfThisProcessAndTheirJobsGoWithTheQueue() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("running"));
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 1);
        eventually().until(() -> blocker.entered.size() == 1);

        queue.obliterate(true);

        eventually().until(() -> blocker.interrupted.contains("running"));
        assertThat(engine.queueNames()).doesNotContain(QUEUE);
        JobQueue<String> anew = newQueue();
        assertThat(anew.counts()).isEqualTo(counts(0, 0, 0, 0, 0));
        assertThat(anew.workers()).isEmpty();
    }
}
