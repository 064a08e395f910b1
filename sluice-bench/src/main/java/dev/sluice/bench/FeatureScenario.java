package dev.sluice.bench;

import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scenario F, Sluice's own (BullMQ has groups only in its commercial Pro edition, so the harness has no such case):
 * B at one concurrency with the features that cost the engine work on every job, all at once: a {@link
 * dev.sluice.queue.QueueListener} registered (the clock stops at its N-th {@code onCompleted}), every completed job
 * kept ({@link Retention#keepAll()}), and the jobs spread round-robin over {@value #GROUPS} groups, each with a rate
 * ({@link #GROUP_RATE}) far above what one Redis can run, so that the rate decision is paid for on every claim but
 * never makes a job wait. Its figures, as B's: {@code features_c<C>_jobs_per_s} and the CPU of the job lifecycle
 * (the untimed bulk add, then the processing) on Redis and in this JVM.
 */
final class FeatureScenario {
    /** How many groups the jobs are spread over. */
    static final int GROUPS = 10;

    /** Each group's rate: an exact sliding log, as D's and E's queue rate, that no run comes near. */
    static final RatePolicy GROUP_RATE = SlidingWindowLog.of(100_000, Duration.ofSeconds(1));

    private FeatureScenario() {}

    /** The group of job {@code i}: {@code g0} to {@code g9}, in turn. */
    static String group(int i) {
        return "g" + (i % GROUPS);
    }

    /** The queue's options: every completed job kept, every group limited to {@link #GROUP_RATE}. */
    static QueueOptions options() {
        return QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().rate(GROUP_RATE).build())
                .jobDefaults(
                        JobOptions.builder().keepCompleted(Retention.keepAll()).build())
                .build();
    }

    /** Runs F once with {@code scenarios}' N and its memory run's concurrency (100 in the harness's sizes). */
    static Map<String, Double> run(QueueRedisScenarios scenarios) throws Exception {
        int n = scenarios.params().n();
        int c = scenarios.params().memConcurrency();
        String name = "features_c" + c;
        Map<String, Double> figures = new LinkedHashMap<>();
        try (QueueRedisScenarios.Run run = scenarios.open("F-" + name, options())) {
            PhaseCpu adding = PhaseCpu.start(scenarios.admin());
            scenarios.addBulkAll(
                    run.queue,
                    n,
                    i -> new NewJob<>(
                            QueueRedisScenarios.JOB_NAME,
                            QueueRedisScenarios.payload(i),
                            JobOptions.builder().group(group(i)).build()));
            PhaseCpu.Use addCpu = adding.stop();
            QueueRedisScenarios.Timed timed = scenarios.runWorker(run, n, c, job -> Result.done(), true);
            long completed = run.queue.counts().completed();
            if (completed != n) {
                throw new IllegalStateException("F: expected " + n + " completed jobs kept, got " + completed);
            }
            PhaseCpu.putLifecycle(figures, name, addCpu, timed.cpu(), n);
            figures.put(name + "_jobs_per_s", n / (timed.ms() / 1000));
        }
        return figures;
    }
}
