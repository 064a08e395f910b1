package dev.sluice.internal.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.internal.adaptive.RateControl.Step;
import dev.sluice.internal.adaptive.Signal.Loss;
import dev.sluice.queue.RateChange.Reason;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateControlTest {
    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_000 * S;
    /** Episodes of 1 s and a climb of 2 s, whatever the defaults. */
    private static final ControlSettings SETTINGS =
            new ControlSettings(10, 1000, 100, 0.7, Duration.ofSeconds(1), Duration.ofSeconds(2), 0.8, 2.0);

    private static Step next(ControlState state, Signal signal, long at) {
        return RateControl.next(SETTINGS, state, signal, at);
    }

    /** A report at {@code at} that started {@code share} of what the rate allowed since the window opened. */
    private static Signal.Report started(ControlState state, long at, double share) {
        return new Signal.Report(Math.round(share * state.rate() * (at - state.windowStart()) / 1e9), 0, 0, null);
    }

    /** The state after a report at {@code at} that used all the rate allowed. */
    private static Step use(ControlState state, long at) {
        return next(state, started(state, at, 1.0), at);
    }

    private static Loss limited(long sentAt) {
        return new Loss(Loss.Kind.RATE_LIMITED, sentAt, 0);
    }

    /** The state cut once at T0 + 1 s from 100 to 70 (episode to T0 + 2 s). */
    private static ControlState cutOnce() {
        return next(RateControl.start(SETTINGS, T0), limited(T0), T0 + S).state();
    }

    @Test
    void aRateStartsAtItsStartAndProbesAboveItSlowlyWhileUsed() {
        ControlState start = RateControl.start(SETTINGS, T0);
        assertThat(start.rate()).isEqualTo(100);

        Step second = use(start, T0 + S);
        // 100 + (100 - 70) * ((3 s - 2 s) / 2 s)^3
        assertThat(second.state().rate()).isCloseTo(103.75, within(1e-9));
        assertThat(second.change()).as("under a tenth more: not told").isNull();
        assertThat(use(second.state(), T0 + 2 * S).state().rate()).isCloseTo(130, within(1e-9));
    }

    @Test
    void aLossCutsTheRateOnceToSeventyPercentAndSaysWhy() {
        Step cut = next(RateControl.start(SETTINGS, T0), new Loss(Loss.Kind.RATE_LIMITED, T0, 3 * S / 2), T0 + S);

        assertThat(cut.state().rate()).isCloseTo(70, within(1e-9));
        assertThat(cut.state().lastGood()).isEqualTo(100);
        assertThat(cut.state().cuts()).isEqualTo(1);
        assertThat(cut.change()).isEqualTo(new RateChange(Reason.CUT, "rate-limited", 1.5, 100, 70, T0 + S));
        assertThat(next(RateControl.start(SETTINGS, T0), new Loss(Loss.Kind.OVERLOADED, T0, 0), T0 + S)
                        .change()
                        .signal())
                .isEqualTo("overloaded");
    }

    @Test
    void lossesInTheSameEpisodeCutNoFurther() {
        ControlState cut = cutOnce();

        Step withinTheEpisode = next(cut, limited(T0 + S), T0 + S + S / 2);
        assertThat(withinTheEpisode.state().rate()).isCloseTo(70, within(1e-9));
        assertThat(withinTheEpisode.change()).isNull();

        Step sentBeforeTheCut = next(cut, limited(T0 + S - 1), T0 + 10 * S);
        assertThat(sentBeforeTheCut.state().rate())
                .as("a late answer to an attempt sent at the old rate")
                .isCloseTo(70, within(1e-9));
        assertThat(sentBeforeTheCut.change()).isNull();

        Step nextEpisode = next(cut, limited(T0 + S), T0 + 2 * S);
        assertThat(nextEpisode.state().rate()).isCloseTo(49, within(1e-9));
        assertThat(nextEpisode.state().lastGood()).isCloseTo(70, within(1e-9));
    }

    @Test
    void aRetryAfterIsTheQueuesToHonourAndMovesNeitherTheRateNorTheEpisode() {
        Step cut = next(RateControl.start(SETTINGS, T0), new Loss(Loss.Kind.RATE_LIMITED, T0, 5 * S), T0);
        assertThat(cut.state().episodeEnds()).isEqualTo(T0 + S);
        assertThat(cut.change().value()).as("told in seconds").isEqualTo(5.0);

        Step later = next(cut.state(), new Loss(Loss.Kind.RATE_LIMITED, T0 + 1, 8 * S), T0 + S / 2);
        assertThat(later.change()).isNull();
        assertThat(later.state()).isEqualTo(cut.state());
        assertThat(next(cut.state(), limited(T0 + 1), T0 + S).state().rate())
                .as("the next episode")
                .isCloseTo(49, within(1e-9));
    }

    @Test
    void theRateClimbsBackToTheLastGoodRateInTheClimbTimeAndProbesBeyond() {
        ControlState cut = cutOnce(); // episode ends at T0 + 2 s
        long ends = T0 + 2 * S;

        assertThat(use(cut, ends).state().rate()).isCloseTo(70, within(1e-9));
        ControlState oneSecond = use(cut, ends + S).state();
        // 100 - 30 * (1/2)^3
        assertThat(oneSecond.rate()).isCloseTo(96.25, within(1e-9));
        ControlState twoSeconds = use(oneSecond, ends + 2 * S).state();
        assertThat(twoSeconds.rate()).isCloseTo(100, within(1e-9));
        ControlState threeSeconds = use(twoSeconds, ends + 3 * S).state();
        assertThat(threeSeconds.rate()).isCloseTo(103.75, within(1e-9));
        ControlState fourSeconds = use(threeSeconds, ends + 4 * S).state();
        assertThat(fourSeconds.rate()).isCloseTo(130, within(1e-9));
        ControlState fiveSeconds = use(fourSeconds, ends + 5 * S).state();
        // two climb times without a loss: doubling every two thirds of one, 130 * 2^(1.5 * 0.5)
        assertThat(fiveSeconds.rate()).isCloseTo(130 * Math.pow(2, 0.75), within(1e-9));
    }

    @Test
    void aCutAfterASuddenDropGoesStraightToWhatTheDownstreamDelivered() {
        ControlState start = RateControl.start(SETTINGS, T0);
        // 6 successes in 100 ms: 60 a second delivered while the rate was 100
        ControlState heard =
                next(start, new Signal.Report(1_000, 6, 0, null), T0 + S / 10).state();
        assertThat(heard.delivered()).isCloseTo(60, within(1e-9));
        ControlState later =
                next(heard, new Signal.Report(1_000, 5, 0, null), T0 + S / 5).state();
        assertThat(later.delivered()).as("a moving average").isCloseTo(60 * 0.7 + 50 * 0.3, within(1e-9));

        ControlState cut = next(later, limited(T0 + S / 5), T0 + S / 5 + 1).state();
        assertThat(cut.rate())
                .as("to what was delivered, under 70% of the rate")
                .isCloseTo(57, within(1e-9));
        assertThat(cut.lastGood()).as("the climb returns to what was delivered").isCloseTo(57, within(1e-9));
        assertThat(cut.cutTo()).isCloseTo(57 * 0.7, within(1e-9));

        // 9 in 100 ms: 90 a second, more than 70% of the rate
        ControlState more =
                next(start, new Signal.Report(1_000, 9, 0, null), T0 + S / 10).state();
        ControlState gentle = next(more, limited(T0 + S / 10), T0 + S / 10 + 1).state();
        assertThat(gentle.rate()).isCloseTo(more.rate() * 0.7, within(1e-9));
        assertThat(gentle.lastGood())
                .as("back to what was delivered, not to the rate that overshot it")
                .isCloseTo(90, within(1e-9));
        assertThat(gentle.cutTo()).isCloseTo(90 * 0.7, within(1e-9));

        ControlState unheard = next(start, limited(T0), T0 + 1).state();
        assertThat(unheard.lastGood())
                .as("nothing delivered heard yet: back to the rate cut from")
                .isEqualTo(100.0);
    }

    @Test
    void aWindowThatRefusedMostSetsWhatWasDeliveredOutright() {
        ControlState heard = next(RateControl.start(SETTINGS, T0), new Signal.Report(1_000, 20, 0, null), T0 + S / 10)
                .state();
        assertThat(heard.delivered()).isCloseTo(200, within(1e-9));
        ControlState half =
                next(heard, new Signal.Report(1_000, 5, 5, null), T0 + S / 5).state();
        assertThat(half.delivered()).as("half refused: averaged").isCloseTo(200 * 0.7 + 50 * 0.3, within(1e-9));
        ControlState most =
                next(heard, new Signal.Report(1_000, 5, 6, null), T0 + S / 5).state();
        assertThat(most.delivered()).isCloseTo(50, within(1e-9));
        ControlState cut = next(most, limited(T0 + S / 5), T0 + S / 5 + 1).state();
        assertThat(most.rate() / 2).as("the rate grew in the first window").isGreaterThan(50);
        assertThat(cut.rate())
                .as("cut toward what was delivered, but to no less than half the rate at once")
                .isCloseTo(most.rate() / 2, within(1e-9));
        assertThat(cut.lastGood()).as("the climb returns to what was delivered").isCloseTo(50, within(1e-9));
    }

    @Test
    void processingTimeDoesNotCutARateTheDownstreamKeepsUpWith() {
        // 12 in 100 ms: 120 a second delivered, more than the rate of 100
        ControlState state = next(RateControl.start(SETTINGS, T0), new Signal.Report(1_000, 12, 0, null), T0 + S / 10)
                .state();
        for (int i = 0; i < RateControl.LATENCY_WARM_UP; i++) {
            state = next(state, new Signal.Latency(10_000_000), T0 + S / 10 + i).state();
        }
        assertThat(state.rate()).isLessThanOrEqualTo(state.delivered());

        Step slow = next(state, new Signal.Latency(1_000_000_000), T0 + S);

        assertThat(slow.change())
                .as("its queue drains: a slow answer tells of the past")
                .isNull();
        assertThat(slow.state().rate()).isEqualTo(state.rate());
        assertThat(slow.state().shortLatency()).as("but it is heard").isGreaterThan(state.shortLatency());
    }

    @Test
    void theRateGrowsToAtMostTwiceWhatTheDownstreamDelivered() {
        // 3 succeeded in 100 ms: 30 a second delivered, while the rate of 100 is used
        ControlState state = next(RateControl.start(SETTINGS, T0), new Signal.Report(10, 3, 0, null), T0 + S / 10)
                .state();
        state = next(state, new Signal.Report(1_000, 30, 0, null), T0 + 2 * S).state();
        // 30 over the next 1.9 s
        assertThat(state.delivered()).isCloseTo(30 * 0.7 + 30 / 1.9 * 0.3, within(1e-9));
        assertThat(state.rate()).as("no growth: already above twice it").isEqualTo(100);
        state = next(state, new Signal.Report(1_000, 1_000, 0, null), T0 + 3 * S)
                .state();
        assertThat(state.rate()).as("delivered caught up: it grows").isGreaterThan(100);
    }

    @Test
    void ticksOfARateNotUsedDoNotGrowIt() {
        ControlState cut = cutOnce();
        long ends = T0 + 2 * S;

        ControlState idle =
                next(cut, started(cut, ends + 10 * S, 0.79), ends + 10 * S).state();
        assertThat(idle.rate()).isCloseTo(70, within(1e-9));
        assertThat(idle.grown()).isZero();
        ControlState used =
                next(idle, started(idle, ends + 11 * S, 0.8), ends + 11 * S).state();
        assertThat(used.rate()).as("only the used second counts").isCloseTo(96.25, within(1e-9));
    }

    @Test
    void theRateStaysBetweenTheFloorAndTheCeiling() {
        ControlSettings narrow =
                new ControlSettings(60, 120, 80, 0.7, Duration.ofSeconds(1), Duration.ofSeconds(2), 0.8, 2.0);
        ControlState state = RateControl.start(narrow, T0);
        state = RateControl.next(narrow, state, limited(T0), T0).state();
        assertThat(state.rate()).isEqualTo(60);
        Step atTheFloor = RateControl.next(narrow, state, limited(T0 + 2 * S), T0 + 2 * S);
        assertThat(atTheFloor.state().rate()).isEqualTo(60);
        assertThat(atTheFloor.change())
                .as("a loss at the floor is still an episode, told")
                .isEqualTo(new RateChange(Reason.CUT, "rate-limited", 0, 60, 60, T0 + 2 * S));

        ControlState grown = RateControl.next(
                        narrow, atTheFloor.state(), new Signal.Report(1_000_000, 0, 0, null), T0 + 60 * S)
                .state();
        assertThat(grown.rate()).isEqualTo(120);
    }

    @Test
    void aClimbIsToldInStepsOfATenthAndWhereItReachesTheLastGoodRate() {
        ControlState state = cutOnce();
        long ends = T0 + 2 * S;
        StringBuilder told = new StringBuilder();
        for (long ms = 100; ms <= 3_000; ms += 100) {
            Step step = use(state, ends + ms * 1_000_000);
            state = step.state();
            if (step.change() != null) {
                assertThat(step.change().reason()).isEqualTo(Reason.CLIMB);
                told.append(Math.round(step.change().to())).append(' ');
            }
        }
        assertThat(told.toString().trim()).isEqualTo("78 87 96 100");
    }

    @Test
    void processingTimeWellAboveItsAverageLowersTheRateInProportionOncePerEpisode() {
        ControlState state = RateControl.start(SETTINGS, T0);
        for (int i = 0; i < RateControl.LATENCY_WARM_UP; i++) {
            Step step = next(state, new Signal.Latency(10_000_000), T0 + i);
            assertThat(step.change()).isNull();
            state = step.state();
        }
        Step slower = next(state, new Signal.Latency(40_000_000), T0 + S);
        // short run 10 * 0.8 + 40 * 0.2 = 16 ms, under twice the long run (about 10.3): no change
        assertThat(slower.change()).isNull();
        Step slowerStill = next(slower.state(), new Signal.Latency(60_000_000), T0 + S + 1);
        // short run 16 * 0.8 + 60 * 0.2 = 24.8 ms; long run about 10.8; allowed 21.6: cut by 21.6 / 24.8
        RateChange change = slowerStill.change();
        assertThat(change.reason()).isEqualTo(Reason.GRADIENT);
        assertThat(change.signal()).isEqualTo("latency");
        assertThat(change.value()).isCloseTo(24.8, within(1e-9));
        double longRun = slowerStill.state().baselineLatency();
        assertThat(change.to()).isCloseTo(100 * 2 * longRun / 24.8e6, within(1e-9));
        assertThat(change.to()).isBetween(70.0, 100.0);

        Step again = next(slowerStill.state(), new Signal.Latency(90_000_000), T0 + S + 2);
        assertThat(again.change()).as("within the episode").isNull();
    }

    @Test
    void processingTimesAreNotJudgedBeforeTheWarmUp() {
        ControlState state = RateControl.start(SETTINGS, T0);
        state = next(state, new Signal.Latency(1_000_000), T0).state();
        Step jump = next(state, new Signal.Latency(1_000_000_000), T0 + 1);
        assertThat(jump.change()).isNull();
        assertThat(jump.state().latencies()).isEqualTo(2);
    }

    @Test
    void aGaugeAboveItsThresholdLowersTheRateInProportionOncePerEpisode() {
        ControlState start = RateControl.start(SETTINGS, T0);
        assertThat(next(start, new Signal.Gauge("pool", 0.8, 0.8), T0).change()).isNull();

        Step over = next(start, new Signal.Gauge("pool", 1.0, 0.8), T0);
        assertThat(over.change()).isEqualTo(new RateChange(Reason.GRADIENT, "pool", 1.0, 100, 80, T0));
        assertThat(next(over.state(), new Signal.Gauge("pool", 2.0, 0.8), T0 + S - 1)
                        .change())
                .isNull();

        Step farOver = next(over.state(), new Signal.Gauge("pool", 4.0, 0.8), T0 + S);
        assertThat(farOver.state().rate()).as("at most a cut").isCloseTo(56, within(1e-9));
    }

    @Test
    void aQuotaThatAllowsLessSetsTheRateAndHoldsItUntilItsWindowResets() {
        ControlState start = RateControl.start(SETTINGS, T0);
        assertThat(next(start, new Signal.Quota(200, 2 * S), T0).change())
                .as("allows 100: no change")
                .isNull();

        Step bound = next(start, new Signal.Quota(30, S), T0);
        assertThat(bound.change()).isEqualTo(new RateChange(Reason.QUOTA, "quota", 30, 100, 30, T0));
        ControlState quiet = use(bound.state(), T0 + S).state();
        assertThat(quiet.rate()).as("no growth before the reset").isCloseTo(30, within(1e-9));
        ControlState after = use(quiet, T0 + 2 * S).state();
        // probes beyond 30 as from a start: 30 + 9 * (1/2)^3
        assertThat(after.rate()).isCloseTo(31.125, within(1e-9));
        assertThat(after.cuts()).as("a quota is no congestion episode").isZero();
        assertThat(next(bound.state(), limited(T0), T0 + 1).state().rate())
                .as("a loss still cuts")
                .isCloseTo(21, within(1e-9));
    }

    @Test
    void aStaleSignalHoldsTheRateUntilHeardAgainAndSaysSoOnce() {
        ControlState cut = cutOnce();
        long ends = T0 + 2 * S;
        Step held = next(cut, new Signal.Report(1_000, 0, 0, "redis-cpu"), ends + S);
        assertThat(held.change()).isEqualTo(new RateChange(Reason.HELD, "redis-cpu", 0, 70, 70, ends + S));
        Step stillHeld = next(held.state(), new Signal.Report(1_000, 0, 0, "redis-cpu"), ends + 2 * S);
        assertThat(stillHeld.change()).isNull();
        assertThat(stillHeld.state().rate()).isCloseTo(70, within(1e-9));

        Step resumed = next(stillHeld.state(), new Signal.Gauge("redis-cpu", 0.3, 0.8), ends + 2 * S + 1);
        assertThat(resumed.change())
                .isEqualTo(new RateChange(Reason.RESUMED, "redis-cpu", 0.3, 70, 70, ends + 2 * S + 1));
        assertThat(resumed.state().held()).isNull();
        Step grows = use(resumed.state(), ends + 3 * S);
        // only the second since it was heard again counts
        assertThat(grows.state().rate()).isCloseTo(96.25, within(1e-6));
        assertThat(next(held.state(), limited(T0 + 3 * S), ends + S + 1).state().rate())
                .as("losses cut while held")
                .isCloseTo(49, within(1e-9));
    }

    @Test
    void aHeldRateStaysHeldThroughFreshReportsUntilItsSignalIsHeardAgain() {
        ControlState held = next(cutOnce(), new Signal.Report(1_000, 0, 0, "redis-cpu"), T0 + 3 * S)
                .state();
        ControlState fresh =
                next(held, new Signal.Report(1, 0, 0, null), T0 + 3 * S + 1).state();
        Step closed = next(fresh, new Signal.Report(1_000, 0, 0, null), T0 + 4 * S);
        assertThat(closed.change()).as("no window lifts it").isNull();
        assertThat(closed.state().held()).isEqualTo("redis-cpu");
        assertThat(closed.state().rate()).isCloseTo(70, within(1e-9));
        Step other = next(closed.state(), new Signal.Gauge("pool", 0.1, 0.8), T0 + 4 * S + 1);
        assertThat(other.state().held()).as("another gauge").isEqualTo("redis-cpu");
        Step heard = next(other.state(), new Signal.Gauge("redis-cpu", 0.95, 0.8), T0 + 4 * S + 2);
        assertThat(heard.state().held()).isNull();
        assertThat(heard.change().reason())
                .as("heard again, and above its threshold")
                .isEqualTo(Reason.GRADIENT);
    }

    @Test
    void processingTimeWellAboveItsBaselineCutsNoFurtherThanACutWhenTheDownstreamDeliveredMore() {
        // 8 in 100 ms: 80 a second, more than a cut's 70
        ControlState state = next(RateControl.start(SETTINGS, T0), new Signal.Report(1_000, 8, 0, null), T0 + S / 10)
                .state();
        for (int i = 0; i < RateControl.LATENCY_WARM_UP; i++) {
            state = next(state, new Signal.Latency(10_000_000), T0 + S / 10 + i).state();
        }
        Step slower = next(state, new Signal.Latency(1_000_000_000), T0 + S);
        assertThat(slower.state().rate()).isCloseTo(state.rate() * 0.7, within(1e-9));
        assertThat(slower.state().lastGood()).isCloseTo(80, within(1e-9));
    }

    @Test
    void aLowerCeilingTakesEffectWhenTheNextWindowCloses() {
        ControlState state = RateControl.start(SETTINGS, T0);
        ControlSettings lower = ControlSettings.between(10, 50);
        assertThat(RateControl.next(lower, state, new Signal.Report(1_000, 0, 0, null), T0 + S)
                        .state()
                        .rate())
                .isEqualTo(50);
    }

    @Test
    void theBaselineLatencyFollowsTheShortRunThroughTheWarmUp() {
        ControlState state = next(RateControl.start(SETTINGS, T0), new Signal.Latency(10_000_000), T0)
                .state();
        assertThat(state.shortLatency()).isEqualTo(10e6);
        assertThat(state.baselineLatency()).isEqualTo(10e6);
        ControlState up = next(state, new Signal.Latency(20_000_000), T0 + 1).state();
        assertThat(up.shortLatency()).isCloseTo(12e6, within(1e-3));
        assertThat(up.baselineLatency()).isCloseTo(12e6, within(1e-3));
    }

    @Test
    void theBaselineLatencyIsTheLowestShortRunAverageOfLateCreepingUpSlowly() {
        ControlState state = RateControl.start(SETTINGS, T0);
        for (int i = 0; i < RateControl.LATENCY_WARM_UP; i++) {
            state = next(state, new Signal.Latency(10_000_000), T0 + i).state();
        }
        assertThat(state.shortLatency()).isCloseTo(10e6, within(1e-3));
        assertThat(state.baselineLatency()).isCloseTo(10e6, within(1e-3));
        long at = T0 + RateControl.LATENCY_WARM_UP - 1;
        ControlState up =
                next(state, new Signal.Latency(20_000_000), at + 30 * S).state();
        assertThat(up.shortLatency()).isCloseTo(12e6, within(1e-3));
        assertThat(up.baselineLatency())
                .as("the short run, below the crept baseline")
                .isCloseTo(12e6, within(1e-3));
        ControlState slow =
                next(state, new Signal.Latency(100_000_000), at + 30 * S).state();
        assertThat(slow.shortLatency()).isCloseTo(28e6, within(1e-3));
        assertThat(slow.baselineLatency()).as("doubling in a minute").isCloseTo(10e6 * Math.sqrt(2), within(1e-3));
        ControlState soon =
                next(slow, new Signal.Latency(100_000_000), at + 30 * S + 1).state();
        assertThat(soon.baselineLatency()).isCloseTo(10e6 * Math.sqrt(2), within(1.0));
        ControlState down = next(up, new Signal.Latency(5_000_000), at + 31 * S).state();
        assertThat(down.shortLatency()).isCloseTo(12e6 * 0.8 + 5e6 * 0.2, within(1e-3));
        assertThat(down.latencyAt()).isEqualTo(at + 31 * S);
        assertThat(down.baselineLatency()).isCloseTo(10.6e6, within(1e-3));
    }

    @Test
    void oneSlowCallAmongVaryingTimesIsNotTakenForQueueing() {
        ControlSettings settings = ControlSettings.between(10, 1000); // tolerating three times the baseline
        ControlState state = RateControl.start(settings, T0);
        for (int i = 0; i < 100; i++) {
            RateControl.Step step = RateControl.next(
                    settings, state, new Signal.Latency((20 + 40L * (i % 2)) * 1_000_000), T0 + i * S / 50);
            assertThat(step.change()).isNull();
            state = step.state();
        }
        Step outlier = RateControl.next(settings, state, new Signal.Latency(250_000_000), T0 + 2 * S + 1);
        assertThat(outlier.change())
                .as("20 and 60 ms in turn, then one of 250 ms")
                .isNull();
        Step another = RateControl.next(settings, outlier.state(), new Signal.Latency(250_000_000), T0 + 2 * S + 2);
        assertThat(another.change())
                .as("and then another: the downstream slows")
                .isNotNull();
        assertThat(another.change().reason()).isEqualTo(Reason.GRADIENT);
    }

    @Test
    void jobsQueueingAtTheDownstreamCutTheRateToWhatItDelivered() {
        ControlState state = next(RateControl.start(SETTINGS, T0), new Signal.Report(1_000, 5, 0, null), T0 + S / 10)
                .state();
        assertThat(state.delivered()).isCloseTo(50, within(1e-9));
        for (int i = 0; i < RateControl.LATENCY_WARM_UP; i++) {
            state = next(state, new Signal.Latency(10_000_000), T0 + S / 10 + i).state();
        }
        Step queued = next(state, new Signal.Latency(1_000_000_000), T0 + S);
        assertThat(queued.change().reason()).isEqualTo(Reason.GRADIENT);
        assertThat(queued.state().rate()).isCloseTo(50, within(1e-9));
        assertThat(queued.state().lastGood()).isCloseTo(50, within(1e-9));
    }

    @Test
    void aQuotaIsReadAsRequestsPerSecondOfItsWindow() {
        Step bound = next(RateControl.start(SETTINGS, T0), new Signal.Quota(60, 2 * S), T0);
        assertThat(bound.change().value()).isEqualTo(30);
        assertThat(bound.state().rate()).isEqualTo(30);
        assertThat(bound.state().quietUntil()).isEqualTo(T0 + 2 * S);
    }

    @Test
    void reportsWithinAWindowAddUpUntilItCloses() {
        ControlState heard = next(RateControl.start(SETTINGS, T0), new Signal.Report(1_000, 20, 0, null), T0 + S / 10)
                .state();
        assertThat(heard.delivered()).isCloseTo(200, within(1e-9));
        assertThat(heard.windowStart()).isEqualTo(T0 + S / 10);
        ControlState open =
                next(heard, new Signal.Report(4, 7, 1, null), T0 + S / 10 + 1).state();
        assertThat(open.delivered()).as("the window is open").isEqualTo(heard.delivered());
        assertThat(open.windowStarted()).isEqualTo(4);
        assertThat(open.windowSucceeded()).isEqualTo(7);
        assertThat(open.windowRefused()).isEqualTo(1);
        assertThat(open.rate()).isEqualTo(heard.rate());
        ControlState closed =
                next(open, new Signal.Report(6, 3, 0, null), T0 + S / 5).state();
        // 10 succeeded over the window of 100 ms: 100 a second
        assertThat(closed.delivered()).isCloseTo(200 * 0.7 + 100 * 0.3, within(1e-9));
        assertThat(closed.windowStarted()).isZero();
        assertThat(closed.windowSucceeded()).isZero();
        assertThat(closed.windowStart()).isEqualTo(T0 + S / 5);
    }

    @Test
    void theShareOfTheRateUsedIsJudgedOverTheWholeWindowOfEveryProcess() {
        ControlState cut = cutOnce();
        long ends = T0 + 2 * S;
        ControlState opened = use(cut, ends).state();
        long window = RateControl.WINDOW;
        // the rate of 70 allowed 7 jobs over the window; two processes started 3 each: 6 of 7 together
        ControlState one = next(opened, new Signal.Report(3, 0, 0, null), ends + window / 2)
                .state();
        ControlState both =
                next(one, new Signal.Report(3, 0, 0, null), ends + window).state();
        assertThat(both.rate()).isCloseTo(100 - 30 * Math.pow(0.95, 3), within(1e-9));
        ControlState alone =
                next(opened, new Signal.Report(3, 0, 0, null), ends + window).state();
        assertThat(alone.rate()).as("3 of 7 alone: app-limited").isCloseTo(70, within(1e-9));
    }

    @Test
    void timesAtTheEndOfTimeSaturateInsteadOfWrapping() {
        long late = Long.MAX_VALUE - S / 2;
        ControlState cut =
                next(RateControl.start(SETTINGS, late), limited(late), late).state();
        assertThat(cut.episodeEnds()).isEqualTo(Long.MAX_VALUE);
        assertThat(next(cut, limited(late), late + 1).change())
                .as("still the same episode")
                .isNull();
        ControlState bound = next(RateControl.start(SETTINGS, late), new Signal.Quota(1, S), late)
                .state();
        assertThat(bound.quietUntil()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void settingsAtTheEdgesOfWhatIsAllowedAreAccepted() {
        ControlSettings single = ControlSettings.between(10, 10);
        assertThat(single.start()).isEqualTo(10);
        assertThat(ControlSettings.between(10, 50).startingAt(10).start()).isEqualTo(10);
        assertThat(ControlSettings.between(10, 50).startingAt(50).start()).isEqualTo(50);
        assertThat(ControlSettings.between(10, 50).startingAt(20))
                .isEqualTo(new ControlSettings(
                        10,
                        50,
                        20,
                        ControlSettings.DEFAULT_CUT,
                        ControlSettings.DEFAULT_EPISODE,
                        ControlSettings.DEFAULT_CLIMB,
                        ControlSettings.DEFAULT_APP_LIMITED,
                        ControlSettings.DEFAULT_LATENCY_TOLERANCE));
        assertThat(new ControlSettings(1, 2, 1, 0.5, Duration.ZERO, Duration.ofSeconds(1), 0, 2).appLimited())
                .isZero();
        assertThat(new ControlSettings(1, 2, 1, 0.5, Duration.ZERO, Duration.ofSeconds(1), 1, 2).appLimited())
                .isEqualTo(1);
    }

    @Test
    void badSettingsAreRefusedWithWhatIsAllowed() {
        assertThatThrownBy(() -> ControlSettings.between(0, 10))
                .hasMessageContaining("floor must be a finite rate above 0");
        assertThatThrownBy(() -> ControlSettings.between(10, 5))
                .hasMessageContaining("ceiling must be a finite rate at least the floor (10.0), got 5.0");
        assertThatThrownBy(() -> ControlSettings.between(10, 50).startingAt(60))
                .hasMessageContaining("start must lie between the floor (10.0) and the ceiling (50.0), got 60.0");
        assertThatThrownBy(() -> new ControlSettings(1, 2, 1, 1.0, Duration.ZERO, Duration.ofSeconds(1), 0.8, 2))
                .hasMessageContaining("cut must lie above 0 and below 1");
        assertThatThrownBy(() -> new ControlSettings(1, 2, 1, 0, Duration.ZERO, Duration.ofSeconds(1), 0.8, 2))
                .hasMessageContaining("cut must lie above 0 and below 1");
        assertThatThrownBy(() -> new ControlSettings(1, 2, 1, 0.5, Duration.ZERO, Duration.ZERO, 0.8, 2))
                .hasMessageContaining("climb must be a duration above 0");
        assertThatThrownBy(
                        () -> new ControlSettings(1, 2, 1, 0.5, Duration.ofSeconds(-1), Duration.ofSeconds(1), 0.8, 2))
                .hasMessageContaining("episode must be a duration of 0 or more");
        assertThatThrownBy(() -> new ControlSettings(1, 2, 1, 0.5, Duration.ZERO, Duration.ofSeconds(1), 1.5, 2))
                .hasMessageContaining("appLimited must lie between 0 and 1");
        assertThatThrownBy(() -> new ControlSettings(1, 2, 1, 0.5, Duration.ZERO, Duration.ofSeconds(1), 0.8, 1))
                .hasMessageContaining("latencyTolerance must be a finite factor above 1");
        assertThatThrownBy(() -> new Signal.Quota(1, 0)).hasMessageContaining("a reset above 0");
        assertThatThrownBy(() -> new Signal.Gauge("pool", 1, 0)).hasMessageContaining("threshold above 0");
        assertThatThrownBy(() -> new Loss(null, 0, 0)).hasMessageContaining("RATE_LIMITED or OVERLOADED");
    }
}
