package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Adaptive rates ({@link AdaptiveRate}) of a queue and of its groups: cut once per burst of refusals, enforced at
 * once for every worker, climbing back while the jobs use the rate and not while they do not, told to listeners and
 * shown by the statistics; and {@link Result#overloaded}, which delays a job without using an attempt or pausing.
 */
public abstract class QueueAdaptiveRateContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueAdaptiveRateContract() {}

    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    /** 100 jobs a second with a burst of 100, adaptive. */
    private static final AdaptiveRate HUNDRED = AdaptiveRate.of(Gcra.of(100, ONE_SECOND, 100));

    private JobQueue<String> queueAt(AdaptiveRate rate) {
        return newQueue(QueueOptions.builder().rate(rate).build());
    }

    private static List<RateChange> heard(JobQueue<String> queue) {
        List<RateChange> changes = Collections.synchronizedList(new ArrayList<>());
        queue.addListener(new QueueListener<>() {
            @Override
            public void onRateChanged(RateChange change) {
                changes.add(change);
            }
        });
        return changes;
    }

    @Test
    void aBurstOfRefusalsCutsTheRateOnce() {
        JobQueue<String> queue = queueAt(HUNDRED);
        List<RateChange> changes = heard(queue);
        for (int i = 0; i < 5; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        Worker<String> worker =
                manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofMinutes(1)));

        assertThat(worker.runDue()).isEqualTo(5);
        told(queue);

        assertThat(changes).hasSize(1);
        RateChange cut = changes.get(0);
        assertThat(cut.scope()).isEqualTo(Result.Scope.QUEUE);
        assertThat(cut.group()).isNull();
        assertThat(cut.reason()).isEqualTo(RateChange.Reason.CUT);
        assertThat(cut.signal()).isEqualTo("overloaded");
        assertThat(cut.value()).isEqualTo(60.0);
        assertThat(cut.from()).isEqualTo(100.0);
        assertThat(cut.to()).isCloseTo(85.0, within(1e-9));
        assertThat(cut.at()).isEqualTo(START);
        QueueStats.Rate rate = queue.stats().rate();
        assertThat(rate.configured()).isEqualTo(HUNDRED);
        assertThat(rate.configuredPerSecond()).isEqualTo(100.0);
        assertThat(rate.perSecond()).isCloseTo(85.0, within(1e-9));
        assertThat(rate.cuts()).isEqualTo(1);
        assertThat(rate.lastChange()).isEqualTo(cut);
    }

    @Test
    void anOverloadedJobWaitsItsDelayWithoutAnAttemptOrAPause() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            return ctx.job().id().equals("a1") && ctx.job().rateLimits() == 0
                    ? Result.overloaded(Result.Scope.GROUP, Duration.ofSeconds(2))
                    : Result.done();
        });

        worker.runDue();

        assertThat(ran).containsExactly("a1", "a2");
        Job<String> overloaded = job(queue, "a1");
        assertThat(overloaded.state()).isEqualTo(JobState.DELAYED);
        assertThat(overloaded.attemptsMade()).isZero();
        assertThat(overloaded.rateLimits()).isEqualTo(1);
        assertThat(overloaded.attempts().get(0).outcome()).isEqualTo(Job.Attempt.Outcome.RATE_LIMITED);
        assertThat(overloaded.attempts().get(0).error()).isEqualTo("overloaded (GROUP), again after 2 s");
        assertThat(queue.stats().rate()).isNull();

        clock.advanceNanos(2 * SECOND - 1);
        worker.runDue();
        assertThat(ran).containsExactly("a1", "a2");
        clock.advanceNanos(1);
        worker.runDue();
        assertThat(ran).containsExactly("a1", "a2", "a1");
        assertThat(stateOf(queue, "a1")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void anOverloadedJobFailsPastItsMostRateLimits() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("x").maxRateLimits(1).build());
        Worker<String> worker = manualWorker(queue, ctx -> Result.overloaded(Result.Scope.GROUP, Duration.ZERO));

        worker.runDue();

        Job<String> failed = job(queue, "x");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failure().reason()).isEqualTo("rate limited 2 times, more than maxRateLimits 1");
    }

    @Test
    void aCutSpacesTheStartsAtTheNewRateForEveryWorker() {
        JobQueue<String> queue = queueAt(AdaptiveRate.of(Gcra.of(10, ONE_SECOND, 1)));
        queue.add("n", "p", withId("refused"));
        for (int i = 0; i < 5; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        AtomicInteger started = new AtomicInteger();
        Worker<String> refusing = manualWorker(queue, ctx -> {
            started.incrementAndGet();
            return Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1));
        });
        Worker<String> other = manualWorker(queue, ctx -> {
            started.incrementAndGet();
            return Result.done();
        });

        // cut to 8.5 a second: a start every 117.647059 ms, the permit just taken owed at the new rate too
        assertThat(refusing.runDue()).isEqualTo(1);
        clock.advance(Duration.ofMillis(117));
        assertThat(other.runDue()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(other.runDue()).isEqualTo(1);
        clock.advance(Duration.ofMillis(117));
        assertThat(other.runDue()).isZero();
        clock.advance(Duration.ofMillis(1));
        assertThat(other.runDue()).isEqualTo(1);
        assertThat(started).hasValue(3);
    }

    @Test
    void theRateClimbsBackWhileTheJobsUseIt() {
        JobQueue<String> queue = queueAt(HUNDRED);
        List<RateChange> changes = heard(queue);
        queue.add("n", "p", withId("refused"));
        for (int i = 0; i < 500; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        Worker<String> refusing =
                manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)));
        refusing.runDue();
        refusing.close();
        Worker<String> worker = manualWorker(queue, ctx -> Result.done());
        // a start every 10 ms for 4 s uses the rate (85 a second, then more), and the climb takes 3 s
        for (int step = 0; step < 400; step++) {
            clock.advance(Duration.ofMillis(10));
            worker.runDue();
        }
        told(queue);

        assertThat(queue.stats().rate().perSecond()).isEqualTo(100.0);
        assertThat(changes.get(0).reason()).isEqualTo(RateChange.Reason.CUT);
        RateChange last = changes.get(changes.size() - 1);
        assertThat(last.reason()).isEqualTo(RateChange.Reason.CLIMB);
        assertThat(last.to()).isEqualTo(100.0);
        assertThat(changes).allSatisfy(c -> assertThat(c.to()).isBetween(1.0, 100.0));
    }

    @Test
    void aQueueThatDoesNotUseItsRateDoesNotClimb() {
        JobQueue<String> queue = queueAt(HUNDRED);
        queue.add("n", "p", withId("refused"));
        Worker<String> refusing =
                manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)));
        refusing.runDue();
        refusing.close();
        Worker<String> worker = manualWorker(queue, ctx -> Result.done());
        for (int second = 0; second < 10; second++) {
            clock.advance(ONE_SECOND);
            queue.add("n", "p", withId("s" + second));
            worker.runDue();
        }

        assertThat(queue.stats().completed()).isEqualTo(10);
        assertThat(queue.stats().rate().perSecond()).isCloseTo(85.0, within(1e-9));
    }

    @Test
    void aGroupsRefusalCutsOnlyThatGroupsRate() {
        AdaptiveRate perGroup = AdaptiveRate.of(Gcra.of(100, ONE_SECOND, 100)).withFloor(10);
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().rate(perGroup).build())
                .build());
        List<RateChange> changes = heard(queue);
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        Worker<String> worker = manualWorker(
                queue,
                ctx -> ctx.job().id().equals("a1")
                        ? Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(1))
                        : Result.done());

        worker.runDue();
        told(queue);

        assertThat(changes).hasSize(1);
        RateChange cut = changes.get(0);
        assertThat(cut.scope()).isEqualTo(Result.Scope.GROUP);
        assertThat(cut.group()).isEqualTo("a");
        assertThat(cut.signal()).isEqualTo("rate-limited");
        assertThat(cut.value()).isEqualTo(1.0);
        assertThat(queue.stats("a").rate().perSecond()).isCloseTo(85.0, within(1e-9));
        assertThat(queue.stats("a").rate().lastChange()).isEqualTo(cut);
        assertThat(queue.stats("b").rate().perSecond()).isEqualTo(100.0);
        assertThat(queue.stats("b").rate().lastChange()).isNull();
        assertThat(queue.stats("b").rate().cuts()).isZero();
        assertThat(queue.stats().rate()).isNull();
        assertThat(stateOf(queue, "a1")).isEqualTo(JobState.WAITING); // paused for 1 s, as any rate limit
    }

    @Test
    void theRateNeverGoesBelowItsFloor() {
        JobQueue<String> queue = queueAt(HUNDRED.withFloor(50));
        for (int i = 0; i < 40; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        Worker<String> worker = manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)));
        for (int episode = 0; episode < 8; episode++) {
            worker.runDue();
            clock.advance(Duration.ofMillis(300)); // past each congestion episode
            queue.add("n", "p", withId("e" + episode));
        }

        assertThat(queue.stats().rate().perSecond()).isEqualTo(50.0);
    }

    @Test
    void theOptionsReadBackTheAdaptiveRate() {
        AdaptiveRate rate = AdaptiveRate.of(Gcra.of(200, ONE_SECOND, 20))
                .withFloor(5)
                .withStart(50)
                .withCut(0.7)
                .withClimb(Duration.ofSeconds(10));
        JobQueue<String> queue = queueAt(rate);

        assertThat(queue.options().rate()).isEqualTo(rate);
        assertThat(queue.stats().rate().perSecond()).isEqualTo(50.0);
        queue.setRate(HUNDRED);
        assertThat(queue.options().rate()).isEqualTo(HUNDRED);
        assertThat(queue.stats().rate().perSecond()).isEqualTo(100.0);
    }

    @Test
    void aQuotaTheDownstreamAnnouncesBoundsTheRate() {
        JobQueue<String> queue = queueAt(HUNDRED);
        List<RateChange> changes = heard(queue);
        queue.add("n", "p", withId("generous"));
        queue.add("n", "p", withId("tight"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.job().id().equals("generous")) {
                ctx.quota(Result.Scope.QUEUE, 1_000, ONE_SECOND); // allows more than the rate: nothing changes
            } else {
                ctx.quota(Result.Scope.GROUP, 20, Duration.ofSeconds(10)); // no group rate: the queue's
            }
            return Result.done();
        });

        worker.runDue();
        told(queue);

        assertThat(changes).hasSize(1);
        RateChange quota = changes.get(0);
        assertThat(quota.reason()).isEqualTo(RateChange.Reason.QUOTA);
        assertThat(quota.signal()).isEqualTo("quota");
        assertThat(quota.value()).isEqualTo(2.0);
        assertThat(quota.from()).isEqualTo(100.0);
        assertThat(quota.to()).isEqualTo(2.0);
        assertThat(queue.stats().rate().perSecond()).isEqualTo(2.0);
        assertThat(queue.stats().rate().cuts()).as("a quota is no cut").isZero();
    }

    @Test
    void aQuotaWithBadValuesIsRefusedAndChangesNothing() {
        JobQueue<String> queue = queueAt(HUNDRED);
        queue.add("n", "p", withId("j"));
        List<String> refused = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            for (Runnable bad : List.<Runnable>of(
                    () -> ctx.quota(null, 1, ONE_SECOND),
                    () -> ctx.quota(Result.Scope.QUEUE, -1, ONE_SECOND),
                    () -> ctx.quota(Result.Scope.QUEUE, 1, Duration.ZERO),
                    () -> ctx.quota(Result.Scope.QUEUE, 1, null))) {
                try {
                    bad.run();
                } catch (IllegalArgumentException e) {
                    refused.add(e.getMessage());
                }
            }
            return Result.done();
        });

        worker.runDue();

        assertThat(refused)
                .containsExactly(
                        "quota scope must be GROUP or QUEUE, was null",
                        "quota remaining must be 0 or more, was -1",
                        "quota resetIn must be a duration above 0, was 0 ns",
                        "quota resetIn must be a duration above 0, was null");
        assertThat(queue.stats().rate().perSecond()).isEqualTo(100.0);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aTimedOutAttemptCutsTheRate() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .rate(HUNDRED)
                .jobDefaults(JobOptions.builder()
                        .timeout(Duration.ofMillis(500))
                        .attempts(2)
                        .build())
                .build());
        List<RateChange> changes = heard(queue);
        queue.add("n", "p", withId("slow"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() == 1) {
                clock.advance(Duration.ofMillis(500)); // past the timeout: the attempt ends TIMED_OUT
                Thread.interrupted(); // its thread was interrupted: clear it for what the test does next
            }
            return Result.done();
        });

        worker.runDue();
        told(queue);

        assertThat(changes).isNotEmpty();
        RateChange cut = changes.get(0);
        assertThat(cut.reason()).isEqualTo(RateChange.Reason.CUT);
        assertThat(cut.signal()).isEqualTo("overloaded");
        assertThat(cut.to()).isCloseTo(85.0, within(1e-9));
    }

    @Test
    void aStaticRateShowsAsConfiguredInTheStatistics() {
        Gcra ten = Gcra.of(10, ONE_SECOND, 2);
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .rate(ten)
                .groupDefaults(
                        GroupLimits.builder().rate(Gcra.of(4, ONE_SECOND, 1)).build())
                .build());

        QueueStats.Rate rate = queue.stats().rate();
        assertThat(rate.configured()).isEqualTo(ten);
        assertThat(rate.configuredPerSecond()).isEqualTo(10.0);
        assertThat(rate.perSecond()).isEqualTo(10.0);
        assertThat(rate.cuts()).isZero();
        assertThat(rate.lastChange()).isNull();
        assertThat(queue.stats("any").rate().perSecond()).isEqualTo(4.0);
    }

    @Test
    void settingTheSameAdaptiveRateKeepsWhatItLearnedAndAnotherStartsOver() {
        JobQueue<String> queue = queueAt(HUNDRED);
        queue.add("n", "p", withId("refused"));
        manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)))
                .runDue();
        assertThat(queue.stats().rate().perSecond()).isCloseTo(85.0, within(1e-9));

        queue.setRate(HUNDRED);
        assertThat(queue.stats().rate().perSecond()).isCloseTo(85.0, within(1e-9));
        assertThat(queue.stats().rate().cuts()).isEqualTo(1);

        queue.setRate(HUNDRED.withFloor(2));
        assertThat(queue.stats().rate().perSecond()).isEqualTo(100.0);
        assertThat(queue.stats().rate().cuts()).isZero();
    }

    @Test
    void withBothRatesAdaptiveEachRefusalCutsTheRateOfItsScope() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .rate(HUNDRED)
                .groupDefaults(GroupLimits.builder().rate(HUNDRED).build())
                .build());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        manualWorker(
                        queue,
                        ctx -> Result.overloaded(
                                ctx.job().group().equals("a") ? Result.Scope.GROUP : Result.Scope.QUEUE,
                                Duration.ofHours(1)))
                .runDue();

        assertThat(queue.stats("a").rate().cuts()).isEqualTo(1);
        assertThat(queue.stats("b").rate().cuts()).isZero();
        assertThat(queue.stats().rate().cuts()).isEqualTo(1);
        assertThat(queue.stats().rate().lastChange().signal()).isEqualTo("overloaded");
    }

    @Test
    void aQueueWideRefusalWithOnlyGroupRatesCutsTheGroupsRate() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().rate(HUNDRED).build())
                .build());
        List<RateChange> changes = heard(queue);
        queue.add("n", "p", inGroup("a1", "a"));
        manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)))
                .runDue();
        told(queue);

        assertThat(changes).hasSize(1);
        assertThat(changes.get(0).scope()).isEqualTo(Result.Scope.GROUP);
        assertThat(changes.get(0).group()).isEqualTo("a");
        assertThat(queue.stats("a").rate().perSecond()).isCloseTo(85.0, within(1e-9));
    }

    @Test
    void processingTimesFarAboveTheirUsualLowerTheRate() {
        JobQueue<String> queue = queueAt(HUNDRED);
        List<RateChange> changes = heard(queue);
        for (int i = 0; i < 30; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        AtomicInteger ran = new AtomicInteger();
        Worker<String> worker = manualWorker(queue, ctx -> {
            // 10 ms each for the first 25 (the usual), then 200 ms: the downstream queues the calls
            clock.advance(Duration.ofMillis(ran.incrementAndGet() <= 25 ? 10 : 200));
            return Result.done();
        });

        worker.runDue();
        told(queue);

        assertThat(changes).isNotEmpty();
        RateChange gradient = changes.get(0);
        assertThat(gradient.reason()).isEqualTo(RateChange.Reason.GRADIENT);
        assertThat(gradient.signal()).isEqualTo("latency");
        assertThat(gradient.value()).as("the short-run processing time, in ms").isGreaterThan(30.0);
        assertThat(gradient.to()).isLessThan(100.0).isGreaterThan(50.0); // in proportion, or to what was delivered
    }

    @Test
    void aGroupsRateClimbsBackWhileItsJobsUseIt() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().rate(HUNDRED).build())
                .build());
        queue.add("n", "p", inGroup("refused", "a"));
        for (int i = 0; i < 500; i++) {
            queue.add("n", "p", inGroup("a" + i, "a"));
        }
        Worker<String> refusing =
                manualWorker(queue, ctx -> Result.overloaded(Result.Scope.GROUP, Duration.ofHours(1)));
        refusing.runDue();
        refusing.close();
        assertThat(queue.stats("a").rate().perSecond()).isCloseTo(85.0, within(1e-9));
        Worker<String> worker = manualWorker(queue, ctx -> Result.done());
        for (int step = 0; step < 400; step++) {
            clock.advance(Duration.ofMillis(10));
            worker.runDue();
        }

        assertThat(queue.stats("a").rate().perSecond()).isEqualTo(100.0);
    }

    @Test
    void aGaugeAboveItsThresholdLowersTheRate() {
        JobQueue<String> queue = queueAt(HUNDRED);
        List<RateChange> changes = heard(queue);
        AtomicReference<Double> pool = new AtomicReference<>(0.5);
        AtomicInteger reads = new AtomicInteger();

        queue.followGauge("db-pool", 0.8, () -> {
            reads.incrementAndGet();
            return pool.get();
        });
        assertThat(reads).as("read at once").hasValue(1);
        pool.set(1.6);
        clock.advance(ONE_SECOND);
        told(queue);

        assertThat(reads).hasValue(2);
        assertThat(changes).hasSize(1);
        RateChange gradient = changes.get(0);
        assertThat(gradient.reason()).isEqualTo(RateChange.Reason.GRADIENT);
        assertThat(gradient.signal()).isEqualTo("db-pool");
        assertThat(gradient.value()).isEqualTo(1.6);
        assertThat(gradient.to()).isCloseTo(85.0, within(1e-9)); // at most a cut: 0.8 / 1.6 would halve it

        queue.unfollowGauge("db-pool");
        clock.advance(Duration.ofSeconds(3));
        assertThat(reads).as("no longer read").hasValue(2);
    }

    @Test
    void aGaugeThatCannotBeReadHoldsTheRateUntilItReadsAgain() {
        JobQueue<String> queue = queueAt(HUNDRED);
        List<RateChange> changes = heard(queue);
        queue.add("n", "p", withId("refused"));
        for (int i = 0; i < 800; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        Worker<String> refusing =
                manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)));
        refusing.runDue();
        refusing.close();
        AtomicReference<Double> cpu = new AtomicReference<>(Double.NaN);
        queue.followGauge("redis-cpu", 0.8, cpu::get);
        Worker<String> worker = manualWorker(queue, ctx -> Result.done());
        for (int step = 0; step < 400; step++) { // four seconds of use: it would climb back to 100
            clock.advance(Duration.ofMillis(10));
            worker.runDue();
        }
        told(queue);
        assertThat(queue.stats().rate().perSecond()).as("held").isCloseTo(85.0, within(1e-9));
        assertThat(changes)
                .extracting(RateChange::reason)
                .containsExactly(RateChange.Reason.CUT, RateChange.Reason.HELD);

        cpu.set(0.2);
        for (int step = 0; step < 400; step++) {
            clock.advance(Duration.ofMillis(10));
            worker.runDue();
        }
        told(queue);
        assertThat(changes.get(2).reason()).isEqualTo(RateChange.Reason.RESUMED);
        assertThat(changes.get(2).signal()).isEqualTo("redis-cpu");
        assertThat(queue.stats().rate().perSecond()).as("climbing again").isGreaterThan(85.0);
    }

    @Test
    void aGaugeWithBadValuesIsRefusedNamingThem() {
        JobQueue<String> queue = queueAt(HUNDRED);
        assertThatThrownBy(() -> queue.followGauge("no spaces", 1, () -> 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("gauge name must be 1 to 128 letters, digits or . _ - :, was 'no spaces'");
        assertThatThrownBy(() -> queue.followGauge("pool", 0, () -> 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("gauge threshold must be finite and above 0, was 0.0");
        assertThatThrownBy(() -> queue.followGauge("pool", Double.POSITIVE_INFINITY, () -> 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gauge threshold must be finite");
        assertThatThrownBy(() -> queue.followGauge("pool", 1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("gauge reading must not be null");
    }

    @Test
    void aLimiterTakesNoAdaptiveRate() {
        assertThatThrownBy(() -> engine.limiter("api", HUNDRED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an AdaptiveRate is a queue's or a group's rate")
                .hasMessageContaining("TokenBucket, Gcra, FixedWindow");
    }
}
