package dev.sluice.bench.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.internal.adaptive.ControlSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulationTest {
    private static final Scenario DROP = Scenario.dropAndReturn(Downstream.RetryAfter.ONE_SECOND);

    private static Controller sluice() {
        return new Controllers.Sluice("sluice", ControlSettings.between(5, 400).startingAt(200), false);
    }

    @Test
    void theSameSeedGivesTheSameTraceAndAnotherSeedAnother() {
        Simulation.Trace first = Simulation.run(DROP, sluice(), 7);
        assertThat(Simulation.run(DROP, sluice(), 7)).isEqualTo(first);
        assertThat(Simulation.run(DROP, sluice(), 8)).isNotEqualTo(first);
        assertThat(first.seconds()).hasSize(180);
    }

    @Test
    void aRateAtTheCapacityIsServedWithoutRefusalsAndOneAboveItIsRefusedTheExcess() {
        Figures oracle = Figures.of(DROP, Simulation.run(DROP, new Controllers.Oracle(DROP.capacity()), 1));
        assertThat(oracle.goodput()).isCloseTo(1.0, within(0.01));
        assertThat(oracle.refusedShare())
                .as("at most a stray one where the pacing meets the bucket")
                .isLessThan(0.001);

        Simulation.Trace fixed = Simulation.run(DROP, new Controllers.Static("static-200", 200), 1);
        Simulation.Second low = fixed.seconds().get(90);
        assertThat(low.capacity()).isEqualTo(50);
        assertThat(low.attempts()).isEqualTo(200);
        assertThat(low.served())
                .as("answers cross second boundaries with their latency")
                .isBetween(45, 55);
        assertThat(Figures.of(DROP, fixed).safeAfter())
                .as("never safe while the capacity is low")
                .isEqualTo(60);
    }

    @Test
    void figuresReadTheMomentsOfTheScenario() {
        List<Simulation.Second> seconds = new java.util.ArrayList<>();
        for (int s = 0; s < 180; s++) {
            double capacity = s >= 60 && s < 120 ? 50 : 200;
            // 429s in the drop's first 3 s, 90% of capacity served from 4 s after the return
            int refused = s >= 60 && s < 63 ? 10 : 0;
            int served = s >= 120 && s < 124 ? 100 : (int) capacity;
            seconds.add(new Simulation.Second(
                    capacity, capacity, served + refused, served, refused, capacity, s / 60, s == 100 ? 250 : 40));
        }
        Figures figures = Figures.of(DROP, new Simulation.Trace(seconds, 2_500, 0.9));
        assertThat(figures.safeAfter()).isEqualTo(3);
        assertThat(figures.backAfter()).isEqualTo(5);
        assertThat(figures.cutsInDrop()).isEqualTo(1);
        assertThat(figures.worstLatencyMs()).isEqualTo(250);
        assertThat(figures.waitP99()).as("seconds").isEqualTo(2.5);
        assertThat(figures.fairness()).isEqualTo(0.9);
        assertThat(figures.refusedShare())
                .as("the drop's first second left out")
                .isCloseTo(20.0 / 26_570, within(1e-9));
    }

    @Test
    void aWaitIsMeasuredFromArrivalOnlyWhereTheDemandIsFinite() {
        Scenario backlog = Scenario.appLimitedThenBacklog();
        Simulation.Trace oracle = Simulation.run(backlog, new Controllers.Oracle(backlog.capacity()), 1);
        // 10,000 jobs at 200/s beside 20/s arriving: the last of the backlog starts about 55 s after it arrived
        assertThat(oracle.waitP99Ms() / 1e3).isBetween(45.0, 60.0);
        Simulation.Trace slow = Simulation.run(backlog, new Controllers.Static("static-50", 50), 1);
        assertThat(slow.waitP99Ms())
                .as("jobs still waiting at the end count with their wait so far")
                .isGreaterThan(80_000);
        assertThat(Simulation.run(DROP, sluice(), 1).waitP99Ms()).isNaN();
    }

    @Test
    void processesServeTheirShareAndOneProcessIsFairByDefinition() {
        assertThat(Simulation.run(DROP, sluice(), 1).fairness()).isEqualTo(1.0);
        assertThat(Simulation.run(DROP, sluice(), 1, 16).fairness()).isGreaterThan(0.999);
        Scenario joining = Scenario.processesJoiningAndLeaving();
        Simulation.Trace trace = Simulation.run(joining, sluice(), 1);
        assertThat(trace.fairness())
                .as("each process over what was served while it was live")
                .isGreaterThan(0.99);
        assertThat(Figures.of(joining, trace).goodput()).isGreaterThan(0.8);
    }

    @Test
    void contendersOfSeveralProcessesDoNotRunWhereTheScenarioSetsTheProcesses() {
        AdaptiveBench.Contender four = AdaptiveBench.contenders().stream()
                .filter(c -> c.processes() == 4)
                .findFirst()
                .orElseThrow();
        assertThat(AdaptiveBench.runs(Scenario.processesJoiningAndLeaving(), four))
                .isFalse();
        assertThat(AdaptiveBench.runs(DROP, four)).isTrue();
        assertThat(AdaptiveBench.contenders().stream().map(AdaptiveBench.Contender::processes))
                .contains(1, 4, 16, 64);
    }

    @Test
    void aStaleGaugeHoldsTheRateUntilItIsHeardAgainAndLossesStillCut() {
        Scenario stale = Scenario.staleGauge();
        List<Simulation.Second> held = Simulation.run(stale, sluice(), 1).seconds();
        List<Simulation.Second> fresh = Simulation.run(DROP, sluice(), 1).seconds();
        assertThat(held.subList(0, 90))
                .as("the same until the gauge goes stale")
                .isEqualTo(fresh.subList(0, 90));
        // a second's limit is read before its last reports: the 90th may end one window's growth above the 89th
        double atStale = held.get(90).limit();
        for (int s = 91; s < 140; s++) {
            assertThat(held.get(s).limit()).as("second %d", s).isLessThanOrEqualTo(atStale);
        }
        assertThat(fresh.get(135).limit())
                .as("without the stale gauge the rate climbed back")
                .isGreaterThan(150);
        assertThat(held.get(170).limit()).as("heard again, it climbs").isGreaterThan(150);
        assertThat(Figures.of(stale, Simulation.run(stale, sluice(), 1)).backAfter())
                .isGreaterThan(20);
    }
}
