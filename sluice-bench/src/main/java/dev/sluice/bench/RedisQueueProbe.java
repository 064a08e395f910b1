package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A first look at what the Redis queue costs Redis, before the scenario benchmark exists: adds 20,000 jobs with a
 * 100-byte payload (bulks of 500), then runs them through a no-op worker at concurrency 1 and 10, keeping every
 * completed job. Prints Redis CPU microseconds per job ({@code INFO cpu} deltas) for the adds and the processing,
 * jobs per second, and Redis bytes per retained completed job ({@code used_memory} delta). One sample per case:
 * a probe, not a measurement to compare across runs.
 *
 * <p>Usage: {@code java -cp sluice-bench/target/benchmarks.jar dev.sluice.bench.RedisQueueProbe [redis URL]
 * [--listener]} (default {@code redis://127.0.0.1:6379}); it writes keys under a fresh {@code probe<nanos>} prefix
 * and leaves them there. With {@code --listener}, a listener that does nothing listens to the queue, so that every
 * call also writes its events to the queue's event stream; the probe then prints the stream's bytes per event. The system property
 * {@code sluice.probe.jobs} sets the number of jobs (default 20,000), {@code sluice.probe.concurrency} the worker
 * concurrencies in order (default 1,10), {@code sluice.probe.timeoutSeconds} the command timeout; with {@code
 * sluice.probe.keepNone} true, no completed job is kept (the queue is then plain: see Active jobs in
 * queue-state.lua), and the bytes per retained job say nothing.
 */
public final class RedisQueueProbe {
    private static final int JOBS = Integer.getInteger("sluice.probe.jobs", 20_000);

    private RedisQueueProbe() {}

    /** The worker concurrencies to run, in order: system property {@code sluice.probe.concurrency}, default 1,10. */
    private static int[] concurrencies() {
        String[] given = System.getProperty("sluice.probe.concurrency", "1,10").split(",");
        int[] values = new int[given.length];
        for (int i = 0; i < given.length; i++) {
            values[i] = Integer.parseInt(given[i].trim());
        }
        return values;
    }

    /**
     * Runs the probe.
     *
     * @param args the Redis URL, optionally
     * @throws Exception if Redis cannot be reached or the wait is interrupted
     */
    public static void main(String[] args) throws Exception {
        String url = args.length > 0 && !args[0].startsWith("--") ? args[0] : "redis://127.0.0.1:6379";
        boolean listen = List.of(args).contains("--listener");
        String payload = "x".repeat(100);
        try (RedisBenchAdmin admin = new RedisBenchAdmin(url)) {
            for (int concurrency : concurrencies()) {
                String prefix = "probe" + System.nanoTime();
                try (Sluice sluice = RedisSluice.builder()
                        .url(url)
                        .keyPrefix(prefix)
                        .commandTimeout(Duration.ofSeconds(Integer.getInteger("sluice.probe.timeoutSeconds", 1)))
                        .build()) {
                    JobQueue<String> queue = sluice.queue(
                            "probe",
                            Codec.utf8(),
                            QueueOptions.builder()
                                    .jobDefaults(JobOptions.builder()
                                            .keepCompleted(
                                                    Boolean.getBoolean("sluice.probe.keepNone")
                                                            ? Retention.keepNone()
                                                            : Retention.keepAll())
                                            .build())
                                    .build());
                    if (listen) {
                        queue.addListener(new QueueListener<>() {});
                    }
                    double cpu0 = admin.cpuSeconds().process();
                    long memory0 = admin.usedMemory();
                    long t0 = System.nanoTime();
                    List<NewJob<String>> bulk = new ArrayList<>();
                    for (int i = 0; i < JOBS; i++) {
                        bulk.add(new NewJob<>("probe", payload, JobOptions.empty()));
                        if (bulk.size() == 500 || i == JOBS - 1) {
                            queue.addBulk(bulk);
                            bulk = new ArrayList<>();
                        }
                    }
                    double cpu1 = admin.cpuSeconds().process();
                    long t1 = System.nanoTime();
                    CountDownLatch done = new CountDownLatch(JOBS);
                    Worker<String> worker = queue.worker(
                            job -> {
                                done.countDown();
                                return Result.done();
                            },
                            WorkerOptions.concurrency(concurrency));
                    done.await();
                    queue.awaitIdle(Duration.ofSeconds(30));
                    double cpu2 = admin.cpuSeconds().process();
                    long t2 = System.nanoTime();
                    long memory2 = admin.usedMemory();
                    worker.close(Duration.ofSeconds(5));
                    System.out.printf(
                            "concurrency %d: add %.1f µs Redis CPU/job, %.0f jobs/s; process %.1f µs/job, %.0f jobs/s;"
                                    + " lifecycle %.1f µs/job; %d bytes per retained completed job%n",
                            concurrency,
                            (cpu1 - cpu0) * 1e6 / JOBS,
                            JOBS / ((t1 - t0) / 1e9),
                            (cpu2 - cpu1) * 1e6 / JOBS,
                            JOBS / ((t2 - t1) / 1e9),
                            (cpu2 - cpu0) * 1e6 / JOBS,
                            (memory2 - memory0) / JOBS);
                    if (listen) {
                        String events = prefix + ":queue:{probe}:ev";
                        long kept = admin.streamLength(events);
                        System.out.printf(
                                "  event stream: %d events kept, %d bytes per event%n",
                                kept, admin.memoryUsage(events) / Math.max(1, kept));
                    }
                }
            }
        }
    }
}
