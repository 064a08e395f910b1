package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.Gcra;
import dev.sluice.queue.Codec;
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
