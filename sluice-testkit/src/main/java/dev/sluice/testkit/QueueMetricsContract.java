package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.Result;
import dev.sluice.queue.UnrecoverableJobException;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link QueueMetrics}: what the engine tells a queue's metrics of the changes this process makes, with waits and
 * processing times by the engine's clock.
 */
public abstract class QueueMetricsContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueMetricsContract() {}

    @Test
    void eachAddStartAndEndIsToldWithTheWaitSinceTheJobWasReadyAndHowLongItsAttemptRan() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().attempts(2).backoff(Backoff.fixed(Duration.ofSeconds(1))));
        Recorded metrics = new Recorded();
        queue.addMetrics(metrics);
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() == 1) {
                clock.advance(Duration.ofMillis(300));
                throw new Boom("boom");
            }
            clock.advance(Duration.ofMillis(100));
            return Result.done();
        });

        queue.add("n", "p", withId("j"));
        clock.advance(Duration.ofSeconds(2));
        worker.runDue();
        clock.advance(Duration.ofMillis(1_500));
        worker.runDue();

        assertThat(metrics.log)
                .containsExactly(
                        "added null",
                        "started null PT2S",
                        "retrying null FAILED PT0.3S",
                        "started null PT0.5S",
                        "completed null PT0.1S");
    }

    @Test
    void aDelayedJobWaitsFromTheEndOfItsDelayAndAGroupIsNamed() {
        JobQueue<String> queue = newQueue();
        Recorded metrics = new Recorded();
        queue.addMetrics(metrics);
        Worker<String> worker = manualWorker(queue, taking(40));

        queue.add(
                "n",
                "p",
                JobOptions.builder()
                        .jobId("j")
                        .group("tenant-1")
                        .delay(Duration.ofSeconds(3))
                        .build());
        clock.advance(Duration.ofMillis(3_250));
        worker.runDue();

        assertThat(metrics.log)
                .containsExactly("added tenant-1", "started tenant-1 PT0.25S", "completed tenant-1 PT0.04S");
    }

    @Test
    void everyWayAnAttemptEndsIsToldWithItsOutcome() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(3).maxRateLimits(1));
        Recorded metrics = new Recorded();
        queue.addMetrics(metrics);
        AtomicInteger runs = new AtomicInteger();
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(10));
            return switch (ctx.job().name()) {
                case "limited" -> Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(1));
                case "again" -> runs.incrementAndGet() == 1 ? Result.runAgainAfter(Duration.ZERO) : Result.done();
                default -> throw new UnrecoverableJobException("no use retrying");
            };
        });

        queue.add("limited", "p", inGroup("l", "g"));
        worker.runDue();
        assertThat(metrics.log).containsExactly("added g", "started g PT0S", "rate-limited g GROUP PT0.01S");

        metrics.log.clear();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();
        assertThat(metrics.log)
                .as("rate-limited once more than maxRateLimits: failed for good")
                .containsExactly("started g PT1S", "failed g RATE_LIMITED PT0.01S");

        metrics.log.clear();
        queue.add("again", "p", withId("a"));
        worker.runDue();
        assertThat(metrics.log)
                .containsExactly(
                        "added null",
                        "started null PT0S",
                        "rescheduled null PT0.01S",
                        "started null PT0S",
                        "completed null PT0.01S");

        metrics.log.clear();
        queue.add("broken", "p", withId("b"));
        worker.runDue();
        assertThat(metrics.log).containsExactly("added null", "started null PT0S", "failed null FAILED PT0.01S");
    }

    @Test
    void aTimedOutAttemptIsToldWithItsOutcome() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1).timeout(Duration.ofSeconds(1)));
        Recorded metrics = new Recorded();
        queue.addMetrics(metrics);
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 1);

        queue.add("n", "p", withId("t"));
        eventually().until(() -> blocker.entered.size() == 1);
        clock.advance(Duration.ofSeconds(1));
        eventually().untilAsserted(() -> assertThat(metrics.log).contains("failed null TIMED_OUT PT1S"));

        assertThat(metrics.log)
                .as("told by the adding thread and the worker's, in no order between them")
                .containsExactlyInAnyOrder("added null", "started null PT0S", "failed null TIMED_OUT PT1S")
                .endsWith("failed null TIMED_OUT PT1S");
    }

    @Test
    void aJobGivenBackWhenItsWorkerClosesIsToldAsInterrupted() {
        JobQueue<String> queue = newQueue();
        Recorded metrics = new Recorded();
        queue.addMetrics(metrics);
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 1);

        queue.add("n", "p", withId("i"));
        eventually().until(() -> blocker.entered.size() == 1);
        clock.advance(Duration.ofSeconds(2));
        worker.closeAsync(Duration.ZERO).join();

        assertThat(metrics.log)
                .as("told by the adding thread and the worker's, in no order between them")
                .containsExactlyInAnyOrder("added null", "started null PT0S", "interrupted null PT2S")
                .endsWith("interrupted null PT2S");
    }

    @Test
    void aDuplicateAddIsNotCountedAndRemovedMetricsHearNothingMore() {
        JobQueue<String> queue = newQueue();
        Recorded metrics = new Recorded();
        Recorded other = new Recorded();
        queue.addMetrics(metrics);
        queue.addMetrics(other);

        queue.add("n", "p", withId("j"));
        queue.add("n", "p", withId("j"));
        assertThat(queue.removeMetrics(metrics)).isTrue();
        assertThat(queue.removeMetrics(metrics)).isFalse();
        queue.add("n", "p", withId("k"));

        assertThat(metrics.log).containsExactly("added null");
        assertThat(other.log).containsExactly("added null", "added null");
        assertThatThrownBy(() -> queue.addMetrics(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metrics");
    }

    @Test
    void metricsThatThrowDisturbNeitherTheQueueNorOtherMetrics() {
        JobQueue<String> queue = newQueue();
        Recorded after = new Recorded();
        queue.addMetrics(new QueueMetrics() {
            @Override
            public void added(String group) {
                throw new IllegalStateException("broken metrics");
            }

            @Override
            public void completed(String group, Duration processing) {
                throw new IllegalStateException("broken metrics");
            }
        });
        queue.addMetrics(after);

        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue();

        assertThat(stateOf(queue, "j")).isEqualTo(dev.sluice.queue.JobState.COMPLETED);
        assertThat(after.log).containsExactly("added null", "started null PT0S", "completed null PT0S");
    }

    @Test
    void metricsMayAddJobsWhileTheyAreToldWithoutStallingTheWorker() {
        JobQueue<String> queue = newQueue();
        int links = 20;
        List<String> completed = new CopyOnWriteArrayList<>();
        queue.addMetrics(new QueueMetrics() {
            @Override
            public void completed(String group, Duration processing) {
                completed.add("done");
                if (completed.size() < links) {
                    queue.add("next", "p");
                }
            }
        });
        startedWorker(queue, completing(), 2);

        queue.add("first", "p");

        eventually().untilAsserted(() -> assertThat(completed).hasSize(links));
    }

    /** Metrics that log each call, such as {@code "started g PT2S"} or {@code "failed null TIMED_OUT PT1S"}. */
    static final class Recorded implements QueueMetrics {
        final List<String> log = new CopyOnWriteArrayList<>();

        @Override
        public void added(String group) {
            log.add("added " + group);
        }

        @Override
        public void started(String group, Duration waited) {
            log.add("started " + group + " " + waited);
        }

        @Override
        public void completed(String group, Duration processing) {
            log.add("completed " + group + " " + processing);
        }

        @Override
        public void retrying(String group, Job.Attempt.Outcome outcome, Duration processing) {
            log.add("retrying " + group + " " + outcome + " " + processing);
        }

        @Override
        public void failed(String group, Job.Attempt.Outcome outcome, Duration processing) {
            log.add("failed " + group + " " + outcome + " " + processing);
        }

        @Override
        public void rateLimited(String group, Result.Scope scope, Duration processing) {
            log.add("rate-limited " + group + " " + scope + " " + processing);
        }

        @Override
        public void rescheduled(String group, Duration processing) {
            log.add("rescheduled " + group + " " + processing);
        }

        @Override
        public void interrupted(String group, Duration processing) {
            log.add("interrupted " + group + " " + processing);
        }
    }
}
