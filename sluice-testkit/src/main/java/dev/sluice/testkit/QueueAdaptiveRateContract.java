package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Adaptive rates ({@link AdaptiveRate}) of a queue and of its groups: cut once per burst of refusals, enforced at
 * once for every worker, climbing back while the jobs use the rate and not while they do not, told to listeners and
 * shown by the statistics; and {@link Result#overloaded}, which delays a job without using an attempt or pausing.
 */
public abstract class QueueAdaptiveRateContract extends AdaptiveContractSupport {

    /** For subclasses, one per engine. */
    protected QueueAdaptiveRateContract() {}

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
        assertThat(rate.changes()).isEqualTo(Map.of(RateChange.Reason.CUT, 1L));
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
        // again after 2 s and up to a fifth more, at a point of its own
        Instant runAt = overloaded.runAt();
        assertThat(runAt).isBetween(START.plusSeconds(2), START.plusMillis(2_400));

        clock.advanceNanos(Duration.between(START, runAt).toNanos() - 1);
        worker.runDue();
        assertThat(ran).containsExactly("a1", "a2");
        clock.advanceNanos(1);
        worker.runDue();
        assertThat(ran).containsExactly("a1", "a2", "a1");
        assertThat(stateOf(queue, "a1")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void overloadedJobsRefusedTogetherComeBackSpreadOverAFifthOfTheirDelay() {
        JobQueue<String> queue = newQueue();
        for (int i = 0; i < 20; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofSeconds(10)))
                .runDue();

        Set<Instant> times = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            Instant runAt = job(queue, "j" + i).runAt();
            assertThat(runAt).isBetween(START.plusSeconds(10), START.plusSeconds(12));
            times.add(runAt);
        }
        assertThat(times).as("twenty jobs, twenty times").hasSize(20);
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
        for (int i = 0; i < 500; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        cutOnce(queue);
        Worker<String> worker = manualWorker(queue, ctx -> Result.done());
        // a start every 10 ms for 4 s uses the rate (85 a second, then more), and the climb takes 3 s
        useFor(worker, 4_000);
        told(queue);

        assertThat(queue.stats().rate().perSecond()).isEqualTo(100.0);
        assertThat(changes.get(0).reason()).isEqualTo(RateChange.Reason.CUT);
        RateChange last = changes.get(changes.size() - 1);
        assertThat(last.reason()).isEqualTo(RateChange.Reason.CLIMB);
        assertThat(last.to()).isEqualTo(100.0);
        assertThat(changes).allSatisfy(c -> assertThat(c.to()).isBetween(1.0, 100.0));
        assertThat(queue.stats().rate().changes())
                .as("the statistics count every change told, by reason")
                .isEqualTo(changes.stream().collect(Collectors.groupingBy(RateChange::reason, Collectors.counting())));
    }

    @Test
    void aQueueThatDoesNotUseItsRateDoesNotClimb() {
        JobQueue<String> queue = queueAt(HUNDRED);
        cutOnce(queue);
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
        useFor(worker, 4_000);

        assertThat(queue.stats("a").rate().perSecond()).isEqualTo(100.0);
    }

    @Test
    void aLimiterTakesNoAdaptiveRate() {
        assertThatThrownBy(() -> engine.limiter("api", HUNDRED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an AdaptiveRate is a queue's or a group's rate")
                .hasMessageContaining("TokenBucket, Gcra, FixedWindow");
    }
}
