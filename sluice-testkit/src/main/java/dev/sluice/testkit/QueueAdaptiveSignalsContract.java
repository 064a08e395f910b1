package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What moves an adaptive rate besides the ends of attempts: a quota the downstream announces, a timed-out attempt,
 * processing times far above their usual, and gauges the queue follows, with a gauge that cannot be read holding the
 * rate; on every engine.
 */
public abstract class QueueAdaptiveSignalsContract extends AdaptiveContractSupport {

    /** For subclasses, one per engine. */
    protected QueueAdaptiveSignalsContract() {}

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
        for (int i = 0; i < 800; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        cutOnce(queue);
        AtomicReference<Double> cpu = new AtomicReference<>(Double.NaN);
        queue.followGauge("redis-cpu", 0.8, cpu::get);
        Worker<String> worker = manualWorker(queue, ctx -> Result.done());
        useFor(worker, 4_000); // four seconds of use: it would climb back to 100
        told(queue);
        assertThat(queue.stats().rate().perSecond()).as("held").isCloseTo(85.0, within(1e-9));
        assertThat(changes)
                .extracting(RateChange::reason)
                .containsExactly(RateChange.Reason.CUT, RateChange.Reason.HELD);

        cpu.set(0.2);
        useFor(worker, 4_000);
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
}
