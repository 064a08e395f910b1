package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.RepeatPlanner.Held;
import dev.sluice.internal.queue.RepeatPlanner.Plan;
import dev.sluice.internal.queue.RepeatPlanner.Run;
import dev.sluice.queue.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RepeatPlannerTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Schedule EVERY_10S = Schedule.fixedRate(Duration.ofSeconds(10));
    private static final Schedule DELAY_10S = Schedule.fixedDelay(Duration.ofSeconds(10));

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    private static Run added(long seconds) {
        return new Run(at(seconds), RepeatPlanner.runId("r", at(seconds)), true);
    }

    private static Plan plan(Schedule schedule, long runs, Instant from, Instant now) {
        return RepeatPlanner.plan("r", schedule, T0, runs, Optional.of(from), now, id -> Held.NOTHING);
    }

    @Test
    void runIdsNameTheRepeatableAndTheEpochMillisOfTheRun() {
        assertThat(RepeatPlanner.runId("daily", at(1))).isEqualTo("repeat:daily:" + (T0.toEpochMilli() + 1_000));
    }

    @Test
    void theFirstRunOfAScheduleRegisteredOnARunTimeIsThatTime() {
        assertThat(RepeatPlanner.first(EVERY_10S, T0, T0)).contains(T0);
        assertThat(RepeatPlanner.first(EVERY_10S.startingAt(at(5)), T0, T0)).contains(at(5));
        assertThat(RepeatPlanner.first(Schedule.cron("0 * * * *"), T0.plusNanos(1), T0))
                .contains(at(3_600));
    }

    @Test
    void aDueFixedRateRunIsFollowedAtOnceByThePendingOne() {
        Plan plan = plan(EVERY_10S, 0, T0, T0);

        assertThat(plan.runs()).containsExactly(added(0), added(10));
        assertThat(plan.pending()).isEqualTo(added(10));
        assertThat(plan.nextRun()).isEqualTo(at(10));
    }

    @Test
    void aClockThatJumpedMakesEveryRunItPassedThenThePendingOne() {
        Plan plan = plan(EVERY_10S, 1, at(10), at(35));

        assertThat(plan.runs()).containsExactly(added(10), added(20), added(30), added(40));
        assertThat(plan.nextRun()).isEqualTo(at(40));
    }

    @Test
    void aDueFixedDelayRunIsPendingWithNoNextRunUntilItEnds() {
        Plan plan = plan(DELAY_10S, 0, T0, T0);

        assertThat(plan.runs()).containsExactly(added(0));
        assertThat(plan.pending()).isEqualTo(added(0));
        assertThat(plan.nextRun()).isNull();
        assertThat(RepeatPlanner.afterEnd(DELAY_10S, at(3), T0)).contains(at(13));
    }

    @Test
    void theLimitAndTheEndStopThePlan() {
        Plan limited = plan(EVERY_10S.maxRuns(3), 1, at(10), at(100));
        Plan ended = plan(EVERY_10S.endingAt(at(20)), 0, T0, at(100));

        assertThat(limited.runs()).containsExactly(added(10), added(20));
        assertThat(limited.pending()).isNull();
        assertThat(limited.nextRun()).isNull();
        assertThat(ended.runs()).containsExactly(added(0), added(10));
        assertThat(ended.nextRun()).isNull();
        assertThat(plan(EVERY_10S.maxRuns(2), 2, at(20), at(20)).runs()).isEmpty();
    }

    @Test
    void aFinishedRunsInstantIsSkippedAndAnUnfinishedRunIsAdoptedNotAdded() {
        Map<String, Held> held = Map.of(
                RepeatPlanner.runId("r", at(0)), Held.TAKEN, RepeatPlanner.runId("r", at(10)), Held.UNFINISHED_RUN);

        Plan plan = RepeatPlanner.plan(
                "r", EVERY_10S, T0, 0, Optional.of(T0), T0, id -> held.getOrDefault(id, Held.NOTHING));

        assertThat(plan.runs()).containsExactly(new Run(at(10), RepeatPlanner.runId("r", at(10)), false));
        assertThat(plan.pending().id()).isEqualTo(RepeatPlanner.runId("r", at(10)));
        assertThat(plan.nextRun()).isEqualTo(at(10));
    }

    @Test
    void afterARemovalTheScheduleGoesOnFromTheRemovedRun() {
        assertThat(RepeatPlanner.afterRemoval(EVERY_10S, at(10), at(4), T0)).contains(at(20));
        assertThat(RepeatPlanner.afterRemoval(DELAY_10S, at(10), at(4), T0))
                .as("a fixed delay's delayed run: the one after it")
                .contains(at(20));
        assertThat(RepeatPlanner.afterRemoval(DELAY_10S, at(0), at(4), T0))
                .as("a fixed delay's waiting run: as if it ended now")
                .contains(at(14));
        assertThat(RepeatPlanner.afterDue(EVERY_10S, at(10), T0)).contains(at(20));
    }

    @Test
    void aScheduleThatHasEndedPlansNothing() {
        Plan plan = RepeatPlanner.plan("r", EVERY_10S, T0, 0, Optional.empty(), T0, id -> Held.NOTHING);

        assertThat(plan.runs()).isEmpty();
        assertThat(plan.pending()).isNull();
    }
}
