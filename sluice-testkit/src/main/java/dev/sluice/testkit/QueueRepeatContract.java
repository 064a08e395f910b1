package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Repeatable jobs: cron in a time zone, fixed rate, fixed delay (no overlap), start, end and limit,
 * re-registration that neither misses nor doubles a run, and removal. Each pending run is a job whose id is
 * {@code "repeat:" + id + ":" + epochMillis} of its scheduled time.
 */
public abstract class QueueRepeatContract extends QueueContractSupport {
    private static final NewJob<String> TEMPLATE = new NewJob<>("report", "payload");

    /** For subclasses, one per engine. */
    protected QueueRepeatContract() {}

    private static String runId(String id, Instant at) {
        return "repeat:" + id + ":" + at.toEpochMilli();
    }

    private static String runId(String id, long millisAfterStart) {
        return runId(id, atMillis(millisAfterStart));
    }

    @Test
    void cronInAZoneWithAHalfHourOffsetRunsAtExactInstants() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        Instant first = Instant.parse("2026-01-01T03:30:00Z"); // 09:00 in Kolkata (+05:30)
        Instant second = Instant.parse("2026-01-02T03:30:00Z");

        queue.repeat("daily", Schedule.cron("0 9 * * *", ZoneId.of("Asia/Kolkata")), TEMPLATE);

        List<Job<String>> pending = pendingRuns(queue, "daily");
        assertThat(ids(pending)).containsExactly(runId("daily", first));
        Job<String> run = pending.get(0);
        assertThat(run.state()).isEqualTo(JobState.DELAYED);
        assertThat(run.runAt()).isEqualTo(first);
        assertThat(run.name()).isEqualTo("report");
        assertThat(run.payload()).isEqualTo("payload");

        clock.advanceNanos(Duration.between(START, first).toNanos() - 1);
        assertThat(worker.runDue()).isZero();
        clock.advanceNanos(1);
        assertThat(stateOf(queue, runId("daily", first))).isEqualTo(JobState.WAITING);
        assertThat(job(queue, runId("daily", second)).runAt()).isEqualTo(second);
        assertThat(worker.runDue()).isEqualTo(1);

        clock.advance(Duration.ofDays(1));
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(ran).containsExactly(runId("daily", first), runId("daily", second));
        assertThat(ids(pendingRuns(queue, "daily")))
                .containsExactly(runId("daily", Instant.parse("2026-01-03T03:30:00Z")));
    }

    @Test
    void cronInAZoneBehindUtcAndOnAWeekday() {
        JobQueue<String> queue = newQueue();
        queue.repeat("ny", Schedule.cron("0 9 * * *", ZoneId.of("America/New_York")), TEMPLATE);
        queue.repeat("monday", Schedule.cron("30 8 * * MON", ZoneId.of("Europe/Berlin")), TEMPLATE);

        assertThat(ids(pendingRuns(queue, "ny"))).containsExactly(runId("ny", Instant.parse("2026-01-01T14:00:00Z")));
        assertThat(ids(pendingRuns(queue, "monday")))
                .containsExactly(runId("monday", Instant.parse("2026-01-05T07:30:00Z")));
    }

    @Test
    void cronFollowsDaylightSavingChangesOfItsZone() {
        ManualClock march = clockAt("2026-03-27T12:00:00Z");
        Sluice springEngine = engineOn(march);
        JobQueue<String> queue = springEngine.queue(QUEUE, Codec.utf8());
        Worker<String> worker = track(queue.worker(completing(), WorkerOptions.manual()));

        queue.repeat("berlin", Schedule.cron("0 9 * * *", ZoneId.of("Europe/Berlin")), TEMPLATE);

        Instant beforeChange = Instant.parse("2026-03-28T08:00:00Z"); // 09:00 CET
        Instant afterChange = Instant.parse("2026-03-29T07:00:00Z"); // 09:00 CEST
        Instant dayAfter = Instant.parse("2026-03-30T07:00:00Z");
        assertThat(ids(pendingRuns(queue, "berlin"))).containsExactly(runId("berlin", beforeChange));
        march.advance(Duration.between(march.instant(), beforeChange));
        worker.runDue();
        assertThat(job(queue, runId("berlin", afterChange)).runAt()).isEqualTo(afterChange);
        march.advance(Duration.between(march.instant(), afterChange));
        worker.runDue();
        assertThat(job(queue, runId("berlin", dayAfter)).runAt()).isEqualTo(dayAfter);
    }

    @Test
    void aProducerCannotTakeTheIdOfAScheduledRun() {
        // regression: producers' ids shared the runs' id space, so jobs added beforehand with a run's id stood in
        // for the schedule's own runs, which never happened
        JobQueue<String> queue = newQueue();
        String firstRun = runId("half-minute", 0);
        JobOptions taken = JobOptions.builder().jobId(firstRun).build();

        assertRejected(() -> queue.add("forged", "p", taken), firstRun, "reserved", "repeatable");
        assertRejected(
                () -> queue.addBulk(List.of(new NewJob<>("fine", "p"), new NewJob<>("forged", "p", taken))),
                "job 1",
                firstRun,
                "reserved",
                "nothing was added");
        assertRejected(() -> queue.addAsync("forged", "p", taken), firstRun, "reserved");
        assertThat(queue.counts().total()).isZero();

        queue.repeat("half-minute", Schedule.cron("*/30 * * * * *"), TEMPLATE);
        assertThat(ids(pendingRuns(queue, "half-minute"))).contains(firstRun);
        assertThat(queue.job(firstRun).orElseThrow().name()).isEqualTo(TEMPLATE.name());
    }

    @Test
    void cronDueAtRegistrationRunsAtOnceAndAddsTheFollowingRun() {
        JobQueue<String> queue = newQueue();
        queue.repeat("half-minute", Schedule.cron("*/30 * * * * *"), TEMPLATE);

        List<Job<String>> pending = pendingRuns(queue, "half-minute");
        assertThat(ids(pending)).containsExactly(runId("half-minute", 0), runId("half-minute", 30_000));
        assertThat(pending.get(0).state()).isEqualTo(JobState.WAITING);
        assertThat(pending.get(1).state()).isEqualTo(JobState.DELAYED);
        assertThat(pending.get(1).runAt()).isEqualTo(atMillis(30_000));
    }

    @Test
    void cronWithAStartMakesNoRunBeforeIt() {
        JobQueue<String> queue = newQueue();
        queue.repeat("hourly", Schedule.cron("0 * * * *").startingAt(atMillis(90 * 60_000)), TEMPLATE);
        assertThat(ids(pendingRuns(queue, "hourly"))).containsExactly(runId("hourly", 120 * 60_000));
    }

    @Test
    void fixedRateRunsEveryPeriodFromRegistration() {
        JobQueue<String> queue = newQueue();
        List<Instant> ranAt = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ranAt.add(clock.instant());
            return Result.done();
        });
        clock.advance(Duration.ofSeconds(3));

        queue.repeat("rate", Schedule.fixedRate(Duration.ofSeconds(10)), TEMPLATE);
        for (int second = 3; second <= 30; second++) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(ranAt).containsExactly(atMillis(3_000), atMillis(13_000), atMillis(23_000));
        assertThat(ids(pendingRuns(queue, "rate"))).containsExactly(runId("rate", 33_000));
    }

    @Test
    void fixedRateDoesNotWaitForASlowRun() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ran.size() == 1) {
                clock.advance(Duration.ofSeconds(25));
            }
            return Result.done();
        });
        queue.repeat("rate", Schedule.fixedRate(Duration.ofSeconds(10)), TEMPLATE);

        assertThat(worker.runDue()).isEqualTo(3);

        assertThat(ran).containsExactly(runId("rate", 0), runId("rate", 10_000), runId("rate", 20_000));
        assertThat(ids(pendingRuns(queue, "rate"))).containsExactly(runId("rate", 30_000));
    }

    @Test
    void fixedDelayAddsTheNextRunOnlyAfterThePreviousFinished() {
        JobQueue<String> queue = newQueue();
        List<List<String>> othersWhileRunning = new ArrayList<>();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            othersWhileRunning.add(ids(pendingRuns(queue, "fd")));
            clock.advance(Duration.ofSeconds(3)); // a slow run
            return Result.done();
        });

        queue.repeat("fd", Schedule.fixedDelay(Duration.ofSeconds(10)), TEMPLATE);
        assertThat(ids(pendingRuns(queue, "fd"))).containsExactly(runId("fd", 0));
        assertThat(stateOf(queue, runId("fd", 0))).isEqualTo(JobState.WAITING);

        assertThat(worker.runDue()).isEqualTo(1);
        Job<String> next = job(queue, runId("fd", 13_000));
        assertThat(next.state()).isEqualTo(JobState.DELAYED);
        assertThat(next.runAt()).isEqualTo(atMillis(13_000));

        clock.advance(Duration.ofSeconds(10));
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(ids(pendingRuns(queue, "fd"))).containsExactly(runId("fd", 26_000));

        assertThat(ran).containsExactly(runId("fd", 0), runId("fd", 13_000));
        assertThat(othersWhileRunning).as("no run is pending while one runs").containsOnly(List.of());
        RepeatableJob<String> repeatable = queue.repeatables().get(0);
        assertThat(repeatable.runs()).isEqualTo(3);
    }

    @Test
    void fixedDelayWaitsForTheFinalOutcomeOfARetriedRun() {
        JobQueue<String> queue = newQueue();
        NewJob<String> template = new NewJob<>(
                "flaky",
                "p",
                JobOptions.builder()
                        .attempts(2)
                        .backoff(Backoff.fixed(Duration.ofSeconds(5)))
                        .build());
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() == 1) {
                throw new Boom("first attempt fails");
            }
            return Result.done();
        });
        queue.repeat("fd", Schedule.fixedDelay(Duration.ofSeconds(10)), template);

        worker.runDue();
        assertThat(ids(pendingRuns(queue, "fd"))).containsExactly(runId("fd", 0));
        assertThat(stateOf(queue, runId("fd", 0))).isEqualTo(JobState.DELAYED);

        clock.advance(Duration.ofSeconds(5));
        worker.runDue();
        assertThat(stateOf(queue, runId("fd", 0))).isEqualTo(JobState.COMPLETED);
        assertThat(ids(pendingRuns(queue, "fd"))).containsExactly(runId("fd", 15_000));
    }

    @Test
    void fixedDelayGoesOnAfterARunFailedForGood() {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofSeconds(1));
            throw new Boom("always");
        });
        queue.repeat("fd", Schedule.fixedDelay(Duration.ofSeconds(10)), TEMPLATE);

        worker.runDue();

        assertThat(stateOf(queue, runId("fd", 0))).isEqualTo(JobState.FAILED);
        assertThat(ids(pendingRuns(queue, "fd"))).containsExactly(runId("fd", 11_000));
    }

    @Test
    void startAndEndBoundTheRuns() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        Schedule schedule = Schedule.fixedRate(Duration.ofSeconds(10))
                .startingAt(atMillis(5_000))
                .endingAt(atMillis(30_000));

        queue.repeat("bounded", schedule, TEMPLATE);
        assertThat(ids(pendingRuns(queue, "bounded"))).containsExactly(runId("bounded", 5_000));
        for (int second = 0; second <= 60; second++) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(ran).containsExactly(runId("bounded", 5_000), runId("bounded", 15_000), runId("bounded", 25_000));
        assertThat(pendingRuns(queue, "bounded")).isEmpty();
        RepeatableJob<String> ended = queue.repeatables().get(0);
        assertThat(ended.runs()).isEqualTo(3);
        assertThat(ended.nextRun()).isNull();
    }

    @Test
    void limitBoundsTheNumberOfRuns() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.repeat("thrice", Schedule.fixedRate(Duration.ofSeconds(1)).maxRuns(3), TEMPLATE);

        for (int second = 0; second < 10; second++) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(ran).containsExactly(runId("thrice", 0), runId("thrice", 1_000), runId("thrice", 2_000));
        assertThat(pendingRuns(queue, "thrice")).isEmpty();
        assertThat(queue.repeatables()).singleElement().satisfies(r -> {
            assertThat(r.runs()).isEqualTo(3);
            assertThat(r.nextRun()).isNull();
        });
    }

    @Test
    void reRegisteringTheSameScheduleNeitherMissesNorDoublesARun() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        Schedule every10s = Schedule.fixedRate(Duration.ofSeconds(10));

        queue.repeat("r", every10s, TEMPLATE);
        worker.runDue();
        clock.advance(Duration.ofSeconds(4));
        queue.repeat("r", every10s, new NewJob<>("report", "payload"));
        assertThat(ids(pendingRuns(queue, "r"))).containsExactly(runId("r", 10_000));

        clock.advance(Duration.ofSeconds(6));
        queue.repeat("r", every10s, TEMPLATE); // exactly when a run fell due
        assertThat(ids(pendingRuns(queue, "r"))).containsExactly(runId("r", 10_000), runId("r", 20_000));
        worker.runDue();

        clock.advance(Duration.ofSeconds(10));
        worker.runDue();
        queue.repeat("r", every10s, TEMPLATE);
        worker.runDue();

        assertThat(ran).containsExactly(runId("r", 0), runId("r", 10_000), runId("r", 20_000));
        assertThat(ids(pendingRuns(queue, "r"))).containsExactly(runId("r", 30_000));
        assertThat(queue.repeatables()).hasSize(1);
    }

    @Test
    void reRegisteringACronScheduleKeepsItsPendingRun() {
        JobQueue<String> queue = newQueue();
        Schedule daily = Schedule.cron("0 9 * * *", ZoneId.of("Asia/Kolkata"));
        queue.repeat("daily", daily, TEMPLATE);
        clock.advance(Duration.ofHours(1));
        queue.repeat("daily", daily, TEMPLATE);
        assertThat(ids(pendingRuns(queue, "daily")))
                .containsExactly(runId("daily", Instant.parse("2026-01-01T03:30:00Z")));
        assertThat(queue.counts().total()).isEqualTo(1);
    }

    @Test
    void reRegisteringWithAnotherScheduleReplacesThePendingRun() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.repeat("r", Schedule.fixedRate(Duration.ofSeconds(10)), TEMPLATE);
        worker.runDue();
        clock.advance(Duration.ofSeconds(4));

        Schedule faster = Schedule.fixedRate(Duration.ofSeconds(3));
        queue.repeat("r", faster, TEMPLATE);

        assertThat(queue.job(runId("r", 10_000)))
                .as("the old pending run is removed")
                .isEmpty();
        assertThat(ids(pendingRuns(queue, "r"))).containsExactly(runId("r", 4_000), runId("r", 7_000));
        assertThat(queue.repeatables())
                .singleElement()
                .satisfies(r -> assertThat(r.schedule()).isEqualTo(faster));
        worker.runDue();
        clock.advance(Duration.ofSeconds(3));
        worker.runDue();
        assertThat(ran).containsExactly(runId("r", 0), runId("r", 4_000), runId("r", 7_000));
    }

    @Test
    void removeRepeatableRemovesItsPendingRun() {
        JobQueue<String> queue = newQueue();
        queue.repeat("daily", Schedule.cron("0 9 * * *"), TEMPLATE);
        queue.repeat("other", Schedule.cron("0 10 * * *"), TEMPLATE);

        assertThat(queue.removeRepeatable("daily")).isTrue();

        assertThat(pendingRuns(queue, "daily")).isEmpty();
        assertThat(queue.repeatables()).extracting(RepeatableJob::id).containsExactly("other");
        assertThat(queue.removeRepeatable("daily")).isFalse();
        assertThat(queue.removeRepeatable("never-registered")).isFalse();
        clock.advance(Duration.ofDays(3));
        assertThat(pendingRuns(queue, "daily")).isEmpty();
        assertThat(pendingRuns(queue, "other"))
                .as("the other repeatable goes on")
                .hasSize(4);
    }

    @Test
    void removingARepeatableLetsARunThatStartedFinish() {
        JobQueue<String> queue = newQueue();
        List<Boolean> removed = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            removed.add(queue.removeRepeatable("r"));
            return Result.done();
        });
        queue.repeat("r", Schedule.fixedRate(Duration.ofSeconds(10)), TEMPLATE);

        worker.runDue();

        assertThat(removed).containsExactly(true);
        assertThat(stateOf(queue, runId("r", 0))).isEqualTo(JobState.COMPLETED);
        assertThat(pendingRuns(queue, "r")).isEmpty();
        clock.advance(Duration.ofMinutes(1));
        assertThat(worker.runDue()).isZero();
    }

    @Test
    void removingThePendingRunOfAFixedRateSkipsItAndTheScheduleGoesOn() {
        // pins issue 9: the next run was planned only when the pending one came due, so removing it ended the schedule
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.repeat("rate", Schedule.fixedRate(Duration.ofSeconds(10)), TEMPLATE);
        worker.runDue();
        clock.advance(Duration.ofSeconds(4));

        assertThat(queue.remove(runId("rate", 10_000))).isTrue();

        assertThat(ids(pendingRuns(queue, "rate"))).containsExactly(runId("rate", 20_000));
        assertThat(queue.repeatables())
                .singleElement()
                .satisfies(r -> assertThat(r.nextRun()).isEqualTo(atMillis(20_000)));
        clock.advance(Duration.ofSeconds(16));
        worker.runDue();
        assertThat(ran).containsExactly(runId("rate", 0), runId("rate", 20_000));
        assertThat(ids(pendingRuns(queue, "rate"))).containsExactly(runId("rate", 30_000));
    }

    @Test
    void drainingThePendingRunsOfCronAndFixedDelaySchedulesKeepsBothGoing() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.repeat("hourly", Schedule.cron("0 * * * *"), TEMPLATE);
        queue.repeat("fd", Schedule.fixedDelay(Duration.ofMinutes(10)), TEMPLATE);
        clock.advance(Duration.ofSeconds(1));
        assertThat(ids(pendingRuns(queue, "hourly"))).containsExactly(runId("hourly", 0), runId("hourly", 3_600_000));

        assertThat(queue.drain(true)).isEqualTo(3);

        assertThat(ids(pendingRuns(queue, "hourly"))).containsExactly(runId("hourly", 7_200_000));
        assertThat(ids(pendingRuns(queue, "fd")))
                .as("a fixed delay whose waiting run was removed goes on as if that run ended now")
                .containsExactly(runId("fd", 601_000));
        assertThat(queue.repeatables())
                .extracting(RepeatableJob::nextRun)
                .containsExactly(atMillis(601_000), atMillis(7_200_000));
        clock.advance(Duration.ofHours(2));
        worker.runDue();
        assertThat(ran).contains(runId("hourly", 7_200_000), runId("fd", 601_000));
    }

    @Test
    void aFixedDelayRunThatIsDueOrRunningShowsNoNextRun() {
        JobQueue<String> queue = newQueue();
        List<Instant> nextRunWhileRunning = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            nextRunWhileRunning.add(queue.repeatables().get(0).nextRun());
            return Result.done();
        });
        queue.repeat("fd", Schedule.fixedDelay(Duration.ofSeconds(10)), TEMPLATE);
        clock.advance(Duration.ofSeconds(1));

        assertThat(queue.repeatables().get(0).nextRun())
                .as("the run due at 0 waits; the next run is not known before it ends")
                .isNull();
        worker.runDue();

        assertThat(nextRunWhileRunning).containsOnlyNulls().hasSize(1);
        assertThat(queue.repeatables().get(0).nextRun()).isEqualTo(atMillis(11_000));
    }

    @Test
    void changingAScheduleInTheMillisecondOfAKeptRunSkipsThatInstantAndGoesOn() {
        // pins issue 9: the new first run got the id of the kept completed run, and nothing was planned after it
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.repeat("r", Schedule.fixedRate(Duration.ofSeconds(10)), TEMPLATE);
        worker.runDue();
        assertThat(stateOf(queue, runId("r", 0))).isEqualTo(JobState.COMPLETED);

        queue.repeat("r", Schedule.fixedRate(Duration.ofSeconds(3)), TEMPLATE);

        assertThat(ids(pendingRuns(queue, "r"))).containsExactly(runId("r", 3_000));
        assertThat(queue.repeatables().get(0).nextRun()).isEqualTo(atMillis(3_000));
        clock.advance(Duration.ofSeconds(3));
        worker.runDue();
        assertThat(ran).containsExactly(runId("r", 0), runId("r", 3_000));
        assertThat(ids(pendingRuns(queue, "r"))).containsExactly(runId("r", 6_000));
    }

    @Test
    void repeatablesListsWhatWasRegistered() {
        JobQueue<String> queue = newQueue();
        Schedule cron = Schedule.cron("0 9 * * *", ZoneId.of("Asia/Kolkata"));
        NewJob<String> grouped =
                new NewJob<>("sync", "x", JobOptions.builder().group("tenant").build());
        queue.repeat("b", Schedule.fixedDelay(Duration.ofMinutes(5)), grouped);
        RepeatableJob<String> a = queue.repeat("a", cron, TEMPLATE);

        assertThat(a.id()).isEqualTo("a");
        assertThat(a.schedule()).isEqualTo(cron);
        assertThat(a.template()).isEqualTo(TEMPLATE);
        assertThat(queue.repeatables()).extracting(RepeatableJob::id).containsExactly("a", "b");
        assertThat(job(queue, runId("b", 0)).group()).isEqualTo("tenant");
        assertThat(job(queue, runId("b", 0)).name()).isEqualTo("sync");
    }

    /** Runs the queue's due jobs at every step of {@code step} until {@code until}, returning the runs' ids. */
    private static List<String> runUntil(ManualClock clock, JobQueue<String> queue, Instant until, Duration step) {
        List<String> ran = new ArrayList<>();
        Worker<String> worker = queue.worker(recording(ran), WorkerOptions.manual());
        try {
            while (clock.instant().isBefore(until)) {
                worker.runDue();
                clock.advance(step);
            }
            worker.runDue();
        } finally {
            worker.close(Duration.ZERO);
        }
        return ran;
    }

    @Test
    void cronSkipsALocalTimeThatDoesNotExistOnASpringForwardDay() {
        ManualClock spring = clockAt("2026-03-28T00:00:00Z");
        JobQueue<String> queue = engineOn(spring).queue(QUEUE, Codec.utf8());
        queue.repeat("night", Schedule.cron("30 2 * * *", ZoneId.of("Europe/Berlin")), TEMPLATE);

        List<String> ran = runUntil(spring, queue, Instant.parse("2026-03-30T12:00:00Z"), Duration.ofMinutes(30));

        assertThat(ran)
                .containsExactly(
                        runId("night", Instant.parse("2026-03-28T01:30:00Z")), // 02:30 CET
                        runId("night", Instant.parse("2026-03-30T00:30:00Z"))); // 02:30 CEST; none on the 29th
    }

    @Test
    void cronRunsARepeatedLocalTimeOnceOnAFallBackDay() {
        ManualClock autumn = clockAt("2026-10-24T12:00:00Z");
        JobQueue<String> queue = engineOn(autumn).queue(QUEUE, Codec.utf8());
        queue.repeat("night", Schedule.cron("30 2 * * *", ZoneId.of("Europe/Berlin")), TEMPLATE);
        queue.repeat("hourly", Schedule.cron("0 * * * *", ZoneId.of("Europe/Berlin")), TEMPLATE);

        List<String> ran = runUntil(autumn, queue, Instant.parse("2026-10-26T12:00:00Z"), Duration.ofMinutes(30));

        assertThat(ran.stream().filter(id -> id.startsWith("repeat:night:")))
                .containsExactly(
                        runId("night", Instant.parse("2026-10-25T00:30:00Z")), // 02:30 CEST, the first pass
                        runId("night", Instant.parse("2026-10-26T01:30:00Z"))); // 02:30 CET the next day
        assertThat(ran)
                .as("a wildcard hour runs in both passes of the repeated hour")
                .contains(
                        runId("hourly", Instant.parse("2026-10-25T00:00:00Z")), // 02:00 CEST
                        runId("hourly", Instant.parse("2026-10-25T01:00:00Z")), // 02:00 CET
                        runId("hourly", Instant.parse("2026-10-25T02:00:00Z"))); // 03:00 CET
        assertThat(ran.stream().filter(id -> id.startsWith("repeat:hourly:")))
                .as("every UTC hour from 12:00 on the 24th to 12:00 on the 26th, both included")
                .hasSize(49);
    }
}
