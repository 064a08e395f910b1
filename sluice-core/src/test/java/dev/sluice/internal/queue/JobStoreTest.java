package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Retention;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobStoreTest {
    private static final long SECOND = 1_000_000_000L;

    private static final JobOptions DEDUPLICATED = JobOptions.defaults().toBuilder()
            .deduplicateFor(Duration.ofSeconds(10))
            .build();

    private final ManualClock clock = new ManualClock();
    private final long t0 = clock.nanos();
    private final JobStore store = new JobStore(new WakeTimer(clock, () -> {}));

    private JobRecord job(String id, JobOptions options) {
        return job(store, id, options);
    }

    private JobRecord job(JobStore in, String id, JobOptions options) {
        JobRecord job = new JobRecord(id, "n", new byte[0], Group.Key.UNGROUPED, options, t0, null, 0);
        job.stats = new Group.Stats();
        in.put(job);
        return job;
    }

    private JobRecord job(String id) {
        return job(
                id,
                JobOptions.defaults().toBuilder()
                        .keepCompleted(Retention.keepAll())
                        .build());
    }

    private List<String> newestFirst(JobState state) {
        List<String> ids = new ArrayList<>();
        store.forEachNewestFirst(state, j -> ids.add(j.id));
        return ids;
    }

    @Test
    void newIdsCountUpSkippingIdsHeldOrRemembered() {
        job("2");
        JobRecord three = job("3", DEDUPLICATED);
        store.finished(three, JobState.COMPLETED, t0);
        store.removeFinished(three, t0);

        assertThat(store.newId()).isEqualTo("1");
        assertThat(store.newId()).as("2 is held, 3 remembered").isEqualTo("4");
    }

    @Test
    void aRemovedJobsIdIsRememberedUntilItsWindowEndsEvenBeforeTheQueueForgetsIt() {
        JobRecord j = job("j", DEDUPLICATED);
        store.finished(j, JobState.COMPLETED, t0);
        store.removeFinished(j, t0 + SECOND);

        assertThat(store.isHeld("j", t0 + 10 * SECOND - 1)).isTrue();
        assertThat(store.isHeld("j", t0 + 10 * SECOND))
                .as("free at the end of its window")
                .isFalse();
        assertThat(store.remembers("j", t0)).as("forgotten once free").isFalse();
        assertThat(store.nextDue()).as("the entry to forget stays due").isEqualTo(t0 + 10 * SECOND);
    }

    @Test
    void aRemovedJobsIdArmsTheWakeForTheEndOfItsWindow() {
        List<Long> wakes = new ArrayList<>();
        JobStore armed = new JobStore(new WakeTimer(clock, () -> wakes.add(clock.nanos())));
        JobRecord j = job(armed, "j", DEDUPLICATED);
        armed.finished(j, JobState.COMPLETED, t0);
        armed.removeFinished(j, t0);

        clock.advance(Duration.ofSeconds(10));

        assertThat(wakes).containsExactly(t0 + 10 * SECOND);
    }

    @Test
    void theFinishedListStaysRightThroughManyRemovalsAndReruns() {
        List<JobRecord> jobs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            JobRecord j = job("c" + i);
            store.finished(j, JobState.COMPLETED, t0 + i);
            jobs.add(j);
        }
        for (int i = 0; i < 200; i++) {
            if (i % 10 != 0) {
                store.removeFinished(jobs.get(i), t0 + 200);
            }
        }
        JobRecord rerun = jobs.get(50);
        store.revive(rerun);
        rerun.state = JobState.ACTIVE;
        store.finished(rerun, JobState.COMPLETED, t0 + 300);

        assertThat(store.count(JobState.COMPLETED)).isEqualTo(20);
        assertThat(newestFirst(JobState.COMPLETED))
                .containsExactly(
                        "c50", "c190", "c180", "c170", "c160", "c150", "c140", "c130", "c120", "c110", "c100", "c90",
                        "c80", "c70", "c60", "c40", "c30", "c20", "c10", "c0");
        assertThat(rerun.stats.keptCompleted)
                .as("one job, one group of its own each")
                .isEqualTo(1);
    }

    @Test
    void aRetentionCountEvictsTheOldestStillKeptAfterRemovals() {
        List<JobRecord> jobs = new ArrayList<>();
        JobOptions lastHundred = JobOptions.defaults().toBuilder()
                .keepCompleted(Retention.keepLast(100))
                .build();
        for (int i = 0; i < 100; i++) {
            JobRecord j = job("c" + i, lastHundred);
            store.finished(j, JobState.COMPLETED, t0 + i);
            jobs.add(j);
        }
        for (int i = 0; i < 98; i++) {
            store.removeFinished(jobs.get(i), t0 + 100);
        }
        JobOptions keepOne = JobOptions.defaults().toBuilder()
                .keepCompleted(Retention.keepLast(1))
                .build();
        JobRecord last = job("last", keepOne);

        store.finished(last, JobState.COMPLETED, t0 + 200);

        assertThat(newestFirst(JobState.COMPLETED)).containsExactly("last");
        assertThat(jobs.get(98).removed).isTrue();
        assertThat(jobs.get(99).removed).isTrue();
    }

    @Test
    void delayedJobsDueAtOneInstantComeOutInTheOrderTheyWereDelayed() {
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            JobRecord j = job("d" + i);
            j.runAt = t0 + SECOND;
            j.seq = i;
            store.delay(j);
        }

        assertThat(store.pollDue(t0 + SECOND - 1)).isNull();
        for (JobRecord j; (j = store.pollDue(t0 + SECOND)) != null; ) {
            out.add(j.id);
        }

        assertThat(out).containsExactly("d1", "d2", "d3", "d4", "d5", "d6");
    }
}
