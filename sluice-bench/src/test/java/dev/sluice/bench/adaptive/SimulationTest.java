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
        List<Simulation.Second> first = Simulation.run(DROP, sluice(), 7);
        assertThat(Simulation.run(DROP, sluice(), 7)).isEqualTo(first);
        assertThat(Simulation.run(DROP, sluice(), 8)).isNotEqualTo(first);
        assertThat(first).hasSize(180);
    }

    @Test
    void aRateAtTheCapacityIsServedWithoutRefusalsAndOneAboveItIsRefusedTheExcess() {
        Figures oracle = Figures.of(DROP, Simulation.run(DROP, new Controllers.Oracle(DROP.capacity()), 1));
        assertThat(oracle.goodput()).isCloseTo(1.0, within(0.01));
        assertThat(oracle.refusedShare())
                .as("at most a stray one where the pacing meets the bucket")
                .isLessThan(0.001);

        List<Simulation.Second> fixed = Simulation.run(DROP, new Controllers.Static("static-200", 200), 1);
        Simulation.Second low = fixed.get(90);
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
        Figures figures = Figures.of(DROP, seconds);
        assertThat(figures.safeAfter()).isEqualTo(3);
        assertThat(figures.backAfter()).isEqualTo(5);
        assertThat(figures.cutsInDrop()).isEqualTo(1);
        assertThat(figures.worstLatencyMs()).isEqualTo(250);
        assertThat(figures.refusedShare())
                .as("the drop's first second left out")
                .isCloseTo(20.0 / 26_570, within(1e-9));
    }
}
