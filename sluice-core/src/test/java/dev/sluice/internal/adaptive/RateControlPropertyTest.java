package dev.sluice.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.RateChange.Reason;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class RateControlPropertyTest {
    private static final long MS = 1_000_000L;
    private static final ControlSettings SETTINGS =
            ControlSettings.between(5, 500).startingAt(100);

    record Timed(long afterMs, Signal signal) {}

    @Provide
    Arbitrary<List<Timed>> histories() {
        Arbitrary<Signal> signals = Arbitraries.oneOf(
                Combinators.combine(
                                Arbitraries.longs().between(0, 500),
                                Arbitraries.longs().between(0, 100),
                                Arbitraries.longs().between(0, 100))
                        .as((started, succeeded, refused) -> new Signal.Report(started, succeeded, refused, null)),
                Arbitraries.of("redis-cpu").map(s -> new Signal.Report(1_000, 0, 0, s)),
                Combinators.combine(
                                Arbitraries.of(Signal.Loss.Kind.class),
                                Arbitraries.longs().between(0, 3_000))
                        .as((kind, retry) -> new Signal.Loss(kind, 0, retry * MS)),
                Arbitraries.longs().between(0, 200).map(ms -> new Signal.Latency(ms * MS)),
                Combinators.combine(
                                Arbitraries.of("pool", "redis-cpu"),
                                Arbitraries.doubles().between(0, 3))
                        .as((name, v) -> new Signal.Gauge(name, v, 1)),
                Combinators.combine(
                                Arbitraries.longs().between(0, 1_000),
                                Arbitraries.longs().between(1, 5_000))
                        .as((left, resetMs) -> new Signal.Quota(left, resetMs * MS)));
        Arbitrary<Timed> timed = Combinators.combine(Arbitraries.longs().between(0, 2_000), signals)
                .as(Timed::new);
        return timed.list().ofMaxSize(200);
    }

    @Property(tries = 300)
    void theRateStaysInItsBoundsOnlyReportsRaiseItAndCutsKeepTheirEpisodes(@ForAll("histories") List<Timed> history) {
        long now = 1_000_000 * MS;
        ControlState state = RateControl.start(SETTINGS, now);
        long lastCut = Long.MIN_VALUE;
        for (Timed t : history) {
            now += t.afterMs() * MS;
            Signal signal = t.signal();
            if (signal instanceof Signal.Loss loss) {
                // the attempt started a while before its answer
                signal = new Signal.Loss(loss.kind(), now - 50 * MS, loss.retryAfterNanos());
            }
            RateControl.Step step = RateControl.next(SETTINGS, state, signal, now);
            ControlState next = step.state();
            assertThat(next.rate()).isBetween(SETTINGS.floor(), SETTINGS.ceiling());
            if (!(signal instanceof Signal.Report)) {
                assertThat(next.rate())
                        .as("%s lowered or kept the rate", signal)
                        .isLessThanOrEqualTo(state.rate());
            } else {
                assertThat(next.rate()).as("a report never lowers it").isGreaterThanOrEqualTo(state.rate());
            }
            if (step.change() != null
                    && (step.change().reason() == Reason.CUT || step.change().reason() == Reason.GRADIENT)) {
                assertThat(lastCut == Long.MIN_VALUE || now >= lastCut + SETTINGS.episodeNanos())
                        .as("a cut %s at %d within the episode of the cut at %d", step.change(), now, lastCut)
                        .isTrue();
                assertThat(step.change().to()).isEqualTo(next.rate());
                lastCut = now;
            }
            if (step.change() == null) {
                assertThat(next.rate() < state.rate())
                        .as("a lowered rate is told: %s -> %s", state, next)
                        .isFalse();
            }
            state = next;
        }
        // whatever happened, once the stale signal is heard again, a rate used for two minutes with nothing lost and
        // all delivered climbs to the ceiling
        now += SETTINGS.episodeNanos();
        state = RateControl.next(SETTINGS, state, new Signal.Gauge("redis-cpu", 0, 1), now)
                .state();
        assertThat(state.held()).isNull();
        for (int i = 0; i < 240; i++) {
            now += 500 * MS;
            state = RateControl.next(SETTINGS, state, new Signal.Report(1_000_000, 1_000_000, 0, null), now)
                    .state();
        }
        assertThat(state.rate()).isEqualTo(SETTINGS.ceiling());
    }
}
