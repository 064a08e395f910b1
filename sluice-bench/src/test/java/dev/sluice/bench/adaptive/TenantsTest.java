package dev.sluice.bench.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.internal.adaptive.ControlSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class TenantsTest {
    private static final Scenario SHARED = Scenario.sharedByTenants();
    private static final Supplier<Controller> SLUICE = () ->
            new Controllers.Sluice("sluice", ControlSettings.between(5, 400).startingAt(50), false);

    @Test
    void theSameSeedGivesTheSameTraceAndAnotherSeedAnother() {
        Tenants.Trace first = Tenants.run(SHARED, SLUICE, Tenants.COUNT, 7);
        assertThat(Tenants.run(SHARED, SLUICE, Tenants.COUNT, 7)).isEqualTo(first);
        assertThat(Tenants.run(SHARED, SLUICE, Tenants.COUNT, 8)).isNotEqualTo(first);
        assertThat(first.seconds()).hasSize(180);
        assertThat(first.tenants())
                .hasSize(Tenants.COUNT)
                .allSatisfy(t -> assertThat(t).hasSize(180));
        Simulation.Second total = first.seconds().get(90);
        assertThat(first.tenants().stream().mapToInt(t -> t.get(90).served()).sum())
                .as("the totals are the tenants' sums")
                .isEqualTo(total.served());
        assertThat(first.tenants().stream().mapToDouble(t -> t.get(90).limit()).sum())
                .isCloseTo(total.limit(), within(1e-9));
    }

    @Test
    void jainsIndexIsOneWhenTenantsAreServedEquallyAndOneOverNWhenOneHasAll() {
        assertThat(Tenants.jain(750, 750, 750, 750)).isEqualTo(1.0);
        assertThat(Tenants.jain(3000, 0, 0, 0)).isEqualTo(0.25);
        assertThat(Tenants.jain(0, 0, 0, 0)).isNaN();

        // four tenants served the same each second: both indexes 1; while low each serves 12 of its 12.5 a second
        List<Simulation.Second> totals = new ArrayList<>();
        List<Simulation.Second> each = new ArrayList<>();
        for (int s = 0; s < 180; s++) {
            double capacity = s >= 60 && s < 120 ? 50 : 200;
            int served = (int) capacity / 4;
            totals.add(new Simulation.Second(capacity, capacity, 4 * served, 4 * served, 0, capacity, 0, 40));
            each.add(new Simulation.Second(capacity / 4, capacity / 4, served, served, 0, capacity / 4, 0, 40));
        }
        Tenants.Trace equal = new Tenants.Trace(totals, List.of(each, each, each, each));
        Tenants.Fairness fairness = Tenants.Fairness.of(SHARED, equal);
        assertThat(fairness.wholeRun()).isEqualTo(1.0);
        assertThat(fairness.lowMinute()).isEqualTo(1.0);
        assertThat(fairness.worstLowShare()).isCloseTo(12 / 12.5, within(1e-9));
    }

    @Test
    void tenantsAtTheirQuarterOfTheCapacityAreServedAlikeAndTheTotalsReadAsOneRun() {
        Profile quarter = Tenants.share(SHARED.capacity(), Tenants.COUNT);
        assertThat(quarter.at(90 * Downstream.SECOND)).isEqualTo(12.5);
        Tenants.Trace oracle = Tenants.run(SHARED, () -> new Controllers.Oracle(quarter), Tenants.COUNT, 1);
        Tenants.Fairness fairness = Tenants.Fairness.of(SHARED, oracle);
        assertThat(fairness.wholeRun()).isGreaterThan(0.999);
        assertThat(fairness.lowMinute()).isGreaterThan(0.99);
        assertThat(fairness.worstLowShare()).isGreaterThan(0.9);
        Figures totals = Figures.of(SHARED, new Simulation.Trace(oracle.seconds(), Double.NaN, fairness.wholeRun()));
        assertThat(totals.goodput()).isCloseTo(1.0, within(0.02));
        assertThat(totals.fairness()).isEqualTo(fairness.wholeRun());
    }

    @Test
    void eachTenantHasAControllerOfItsOwn() {
        List<Controller> made = new ArrayList<>();
        Tenants.run(
                SHARED,
                () -> {
                    Controller c = SLUICE.get();
                    made.add(c);
                    return c;
                },
                Tenants.COUNT,
                1);
        assertThat(made).hasSize(Tenants.COUNT).doesNotHaveDuplicates();
        assertThat(made)
                .allSatisfy(c -> assertThat(c.cuts()).as("each heard 429s").isPositive());
    }
}
