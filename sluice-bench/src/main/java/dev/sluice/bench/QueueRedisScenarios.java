package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * Scenarios A to E of {@code ../shared/bench/bullmq/README.md} for Sluice's Redis queue, each run as the BullMQ
 * harness runs it: the same job name and 100-byte JSON payload, the same counts, batch sizes, concurrencies and
 * rates, the clocks started and stopped at the same points. Only the public API is used ({@link RedisSluice},
 * {@link JobQueue}, {@link Worker}, {@link QueueListener}). Each run opens a fresh engine under a key prefix of
 * its own and deletes every key under it afterwards, as the harness obliterates its queue.
 *
 * <p>Where the harness counts BullMQ's {@code completed} events, this counts {@link QueueListener#onCompleted},
 * which hears a completion once the engine has recorded it. Where it reads BullMQ's own stamps ({@code
 * timestamp}, {@code processedOn}, {@code finishedOn}: milliseconds, taken by the client), this reads the job's
 * {@link Job#createdAt()}, {@link Job#startedAt()} and {@link Job#finishedAt()} (microseconds, Redis's clock).
 * BullMQ's {@code removeOnComplete: true | false} is the queue's job default {@link Retention#keepNone()} or
 * {@link Retention#keepAll()}; BullMQ's worker limiter {@code {max: 100, duration: 1000}} is the queue's rate,
 * {@link SlidingWindowLog} of 100 per second. Added beside the harness's figures: Redis CPU microseconds per
 * job ({@code INFO cpu}, over the same measured phase), in A and B this JVM's CPU microseconds per job ({@link
 * PhaseCpu}), a breakdown of the retained memory by key, in B the no-op call loop that bounds concurrency 1
 * ({@link NoopFloor}), and a scenario F of Sluice's own with every costly feature at once ({@link
 * FeatureScenario}).
 */
final class QueueRedisScenarios {
    /** The job name of every job, as in the BullMQ harness. */
    static final String JOB_NAME = "job";

    private static final String PAD = "x".repeat(76);
    private static final AtomicInteger RUNS = new AtomicInteger();
    /** The engines' command timeout. */
    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    /** The workload's sizes: {@link #standard} is the harness's; tests run a tiny one. */
    record Params(
            int n,
            int batch,
            int inFlight,
            List<Integer> concurrencies,
            int memConcurrency,
            int cJobs,
            int cRate,
            int cConcurrency,
            int limJobs,
            int limConcurrency,
            int limitMax,
            int limitMillis,
            Duration timeout) {
        /** The harness's parameters, with {@code n} jobs for A and B (20,000 there). */
        static Params standard(int n) {
            return new Params(
                    n, 500, 64, List.of(1, 10, 100), 100, 2000, 1000, 10, 1000, 50, 100, 1000, Duration.ofMinutes(5));
        }
    }

    private final String uri;
    private final RedisBenchAdmin admin;
    private final Params params;
    private final List<String> childCommand;

    /**
     * @param childCommand how to start a JVM running {@link QueueRedisBench} (java binary, JVM flags, class path,
     *     main class), for scenario E's second worker process
     */
    QueueRedisScenarios(String uri, RedisBenchAdmin admin, Params params, List<String> childCommand) {
        this.uri = uri;
        this.admin = admin;
        this.params = params;
        this.childCommand = List.copyOf(childCommand);
    }

    /** Runs one scenario, A to F, once; returns its figures by the harness's names (F: {@link FeatureScenario}). */
    Map<String, Double> run(String scenario) throws Exception {
        return switch (scenario) {
            case "A" -> enqueue();
            case "B" -> process();
            case "C" -> latency();
            case "D" -> new QueueLimitScenarios(this).oneWorker();
            case "E" -> new QueueLimitScenarios(this).twoProcesses();
            case "F" -> FeatureScenario.run(this);
            default -> throw new IllegalArgumentException("scenario must be one of A, B, C, D, E, F, was " + scenario);
        };
    }

    String uri() {
        return uri;
    }

    List<String> childCommand() {
        return childCommand;
    }

    Params params() {
        return params;
    }

    RedisBenchAdmin admin() {
        return admin;
    }

    /** The payload of job {@code i}: {@code {"seq":"00042","pad":"xxx…"}}, 100 bytes. */
    static String payload(int i) {
        return "{\"seq\":\"" + String.format(Locale.ROOT, "%05d", i) + "\",\"pad\":\"" + PAD + "\"}";
    }

    /** The sequence number in a {@link #payload}. */
    static int seqOf(String payload) {
        return Integer.parseInt(payload, 8, 13, 10);
    }

    static double epochMillis() {
        return epochMillis(Instant.now());
    }

    static double epochMillis(Instant instant) {
        return instant.getEpochSecond() * 1000.0 + instant.getNano() / 1e6;
    }

    // ---------------------------------------------------------------- scenario A

    private Map<String, Double> enqueue() throws Exception {
        int n = params.n();
        Map<String, Double> figures = new LinkedHashMap<>();
        try (Run run = open("A-bulk", QueueOptions.defaults())) {
            PhaseCpu cpu = PhaseCpu.start(admin);
            long t0 = System.nanoTime();
            addBulkAll(run.queue, n);
            double ms = (System.nanoTime() - t0) / 1e6;
            cpu.stop().putPerJob(figures, "addBulk", n);
            expectWaiting(run.queue, n, "A bulk");
            figures.put("addBulk_jobs_per_s", n / (ms / 1000));
            figures.put("addBulk_ms", ms);
        }
        try (Run run = open("A-add", QueueOptions.defaults())) {
            PhaseCpu cpu = PhaseCpu.start(admin);
            long t0 = System.nanoTime();
            addIndividually(run.queue, n, params.inFlight());
            double ms = (System.nanoTime() - t0) / 1e6;
            cpu.stop().putPerJob(figures, "add64", n);
            expectWaiting(run.queue, n, "A add");
            figures.put("add64_jobs_per_s", n / (ms / 1000));
            figures.put("add64_ms", ms);
        }
        return figures;
    }

    /** {@code addBulk} in sequential batches. */
    void addBulkAll(JobQueue<String> queue, int n) {
        addBulkAll(queue, n, i -> new NewJob<>(JOB_NAME, payload(i)));
    }

    /** {@code addBulk} of {@code job.apply(0)} to {@code job.apply(n - 1)}, in sequential batches. */
    void addBulkAll(JobQueue<String> queue, int n, IntFunction<NewJob<String>> job) {
        for (int i = 0; i < n; i += params.batch()) {
            int end = Math.min(n, i + params.batch());
            List<NewJob<String>> jobs = new ArrayList<>(end - i);
            for (int j = i; j < end; j++) {
                jobs.add(job.apply(j));
            }
            queue.addBulk(jobs);
        }
    }

    /** Single {@code addAsync} calls, at most {@code inFlight} unanswered at any time. */
    private void addIndividually(JobQueue<String> queue, int n, int inFlight) throws Exception {
        Semaphore lanes = new Semaphore(inFlight);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n && failure.get() == null; i++) {
            lanes.acquire();
            queue.addAsync(JOB_NAME, payload(i)).whenComplete((added, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                lanes.release();
            });
        }
        if (!lanes.tryAcquire(inFlight, params.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
            throw new TimeoutException("adds still unanswered after " + params.timeout());
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an add failed", failure.get());
        }
    }

    private static void expectWaiting(JobQueue<String> queue, int n, String what) {
        long waiting = queue.counts().waiting();
        if (waiting != n) {
            throw new IllegalStateException(what + ": expected " + n + " waiting, got " + waiting);
        }
    }

    // ---------------------------------------------------------------- scenario B

    private Map<String, Double> process() throws Exception {
        int n = params.n();
        Map<String, Double> figures = new LinkedHashMap<>();
        try (NoopFloor noop = NoopFloor.open(uri, COMMAND_TIMEOUT)) {
            figures.putAll(noop.measure(n, admin));
        }
        for (int c : params.concurrencies()) {
            try (Run run = open("B-c" + c, retaining(Retention.keepNone()))) {
                PhaseCpu adding = PhaseCpu.start(admin);
                addBulkAll(run.queue, n);
                PhaseCpu.Use addCpu = adding.stop();
                Timed timed = runWorker(run, n, c, job -> Result.done(), false);
                JobCounts counts = run.queue.counts();
                if (counts.waiting() + counts.active() + counts.completed() + counts.failed() != 0) {
                    throw new IllegalStateException("B c" + c + ": unexpected counts " + counts);
                }
                PhaseCpu.putLifecycle(figures, "c" + c, addCpu, timed.cpu, n);
                figures.put("c" + c + "_jobs_per_s", n / (timed.ms / 1000));
            }
        }
        int c = params.memConcurrency();
        try (Run run = open("B-keep-c" + c, retaining(Retention.keepAll()))) {
            Thread.sleep(200);
            long before = admin.usedMemory();
            PhaseCpu adding = PhaseCpu.start(admin);
            addBulkAll(run.queue, n);
            PhaseCpu.Use addCpu = adding.stop();
            Timed timed = runWorker(run, n, c, job -> Result.done(), false);
            Thread.sleep(200);
            long after = admin.usedMemory();
            long completed = run.queue.counts().completed();
            if (completed != n) {
                throw new IllegalStateException("B keep: expected " + n + " completed, got " + completed);
            }
            PhaseCpu.putLifecycle(figures, "keep_c" + c, addCpu, timed.cpu, n);
            figures.put("keep_c" + c + "_jobs_per_s", n / (timed.ms / 1000));
            figures.put("mem_bytes_per_completed_job", (double) (after - before) / n);
            figures.put("mem_delta_bytes", (double) (after - before));
            Map<String, Long> byKind = memoryByKind(run.prefix);
            figures.put(
                    "mem_usage_bytes_per_job",
                    byKind.values().stream().mapToLong(Long::longValue).sum() / (double) n);
            byKind.forEach((kind, bytes) -> figures.put("mem_key_bytes" + kind, (double) bytes));
        }
        return figures;
    }

    /**
     * {@code MEMORY USAGE} of every key under {@code prefix}, summed by what follows the queue's hash tag
     * ({@code :j}, {@code :p}, ...).
     */
    private Map<String, Long> memoryByKind(String prefix) {
        Map<String, Long> byKind = new TreeMap<>();
        for (String key : admin.scan(prefix + ":*")) {
            int brace = key.indexOf('}');
            String kind = brace < 0 ? key.substring(prefix.length()) : key.substring(brace + 1);
            byKind.merge(kind.isEmpty() ? ":" : kind, admin.memoryUsage(key), Long::sum);
        }
        return byKind;
    }

    // ---------------------------------------------------------------- scenario C

    private Map<String, Double> latency() throws Exception {
        int m = params.cJobs();
        try (Run run = open("C", retaining(Retention.keepNone()))) {
            AtomicLongArray issued = new AtomicLongArray(m);
            double[] addToStart = new double[m];
            // wall-clock microseconds of this JVM, comparable with Redis's stamps on the same host
            long[] issuedAt = new long[m];
            long[] invokedAt = new long[m];
            Completions completions = new Completions(m, true);
            run.queue.addListener(completions);
            Worker<String> worker = run.queue.worker(
                    job -> {
                        int seq = seqOf(job.payload());
                        addToStart[seq] = (System.nanoTime() - issued.get(seq)) / 1e6;
                        invokedAt[seq] = epochMicros(Instant.now());
                        return Result.done();
                    },
                    WorkerOptions.builder()
                            .concurrency(params.cConcurrency())
                            .autoStart(false)
                            .build());
            run.worker = worker;
            PhaseCpu cpu = PhaseCpu.start(admin);
            worker.start();
            Thread.sleep(500); // lets the idle worker wait on the queue
            List<CompletableFuture<Added<String>>> pending = new ArrayList<>(m);
            int sent = 0;
            long t0 = System.nanoTime();
            while (sent < m) {
                long due = Math.min(m, (System.nanoTime() - t0) * params.cRate() / 1_000_000_000L + 1);
                while (sent < due) {
                    issued.set(sent, System.nanoTime());
                    issuedAt[sent] = epochMicros(Instant.now());
                    pending.add(run.queue.addAsync(JOB_NAME, payload(sent)));
                    sent++;
                }
                if (sent < m) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
            double produceMs = (System.nanoTime() - t0) / 1e6;
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(params.timeout().toMillis(), TimeUnit.MILLISECONDS);
            completions.await(params.timeout());
            PhaseCpu.Use used = cpu.stop();
            completions.expectNoFailures("C");

            double[] started = new double[m];
            double[] finished = new double[m];
            double[] toCreated = new double[m];
            double[] toInvoked = new double[m];
            synchronized (completions) {
                for (int i = 0; i < m; i++) {
                    Job<String> job = completions.jobs.get(i);
                    started[i] = millisBetween(job.createdAt(), job.startedAt());
                    finished[i] = millisBetween(job.createdAt(), job.finishedAt());
                    int seq = seqOf(job.payload());
                    toCreated[i] = (epochMicros(job.createdAt()) - issuedAt[seq]) / 1e3;
                    toInvoked[i] = (invokedAt[seq] - epochMicros(job.startedAt())) / 1e3;
                }
            }
            // the processor wrote each slot before its job completed; the latch's await reads them after
            double[] hr = addToStart.clone();
            Arrays.sort(started);
            Arrays.sort(finished);
            Arrays.sort(hr);
            Arrays.sort(toCreated);
            Arrays.sort(toInvoked);
            Map<String, Double> figures = new LinkedHashMap<>();
            figures.put("producer_jobs_per_s", (m - 1) / produceMs * 1000);
            figures.put("latency_p50_ms", QueueRedisFigures.percentile(started, 0.5));
            figures.put("latency_p99_ms", QueueRedisFigures.percentile(started, 0.99));
            figures.put("latency_max_ms", started[m - 1]);
            figures.put("latency_mean_ms", QueueRedisFigures.mean(started));
            figures.put("hr_add_to_start_p50_ms", QueueRedisFigures.percentile(hr, 0.5));
            figures.put("hr_add_to_start_p99_ms", QueueRedisFigures.percentile(hr, 0.99));
            figures.put("hr_add_to_start_max_ms", hr[m - 1]);
            figures.put("completed_p50_ms", QueueRedisFigures.percentile(finished, 0.5));
            figures.put("completed_p99_ms", QueueRedisFigures.percentile(finished, 0.99));
            figures.put("completed_max_ms", finished[m - 1]);
            // where the tail of add -> processor lies: before Redis stamped the job created (the add on its way),
            // between created and started (the engine's latency_), after started (the claim's reply on its way)
            figures.put("issued_to_created_p99_ms", QueueRedisFigures.percentile(toCreated, 0.99));
            figures.put("started_to_invoked_p99_ms", QueueRedisFigures.percentile(toInvoked, 0.99));
            figures.put("redis_cpu_us_per_job", used.redisMicros() / m);
            figures.put("client_cpu_us_per_job", used.clientMicros() / m);
            return figures;
        }
    }

    private static long epochMicros(Instant at) {
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1000;
    }

    private static double millisBetween(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1e6;
    }

    // ---------------------------------------------------------------- shared

    /** A worker run: its time to the last completion, the CPU Redis and this JVM spent, and what the listener heard. */
    record Timed(double ms, double t0Epoch, PhaseCpu.Use cpu, Completions completions) {}

    /**
     * Creates a worker (not started), starts the clock, starts the worker, and stops the clock when {@code n}
     * jobs have completed; then reads the Redis CPU and closes the worker.
     */
    Timed runWorker(Run run, int n, int concurrency, Processor<String> processor, boolean record) throws Exception {
        Completions completions = new Completions(n, record);
        if (record) {
            run.queue.addListener(completions);
        }
        // without a listener (B): BullMQ's 'completed' is its worker's own event, which costs Redis nothing, and a
        // listener on Redis follows every process's events through Redis; so the processors count, and the clock
        // stops once Redis counts every completion (read every millisecond after the last processor returned)
        AtomicInteger ran = new AtomicInteger();
        CountDownLatch allRan = new CountDownLatch(1);
        Processor<String> counted = record
                ? processor
                : job -> {
                    Result result = processor.process(job);
                    if (ran.incrementAndGet() == n) {
                        allRan.countDown();
                    }
                    return result;
                };
        Worker<String> worker = run.queue.worker(
                counted,
                WorkerOptions.builder()
                        .concurrency(concurrency)
                        .autoStart(false)
                        .build());
        run.worker = worker;
        PhaseCpu measured = PhaseCpu.start(admin);
        long t0 = System.nanoTime();
        double t0Epoch = epochMillis();
        worker.start();
        long done = record ? completions.await(params.timeout()) : awaitCompleted(run, n, ran, allRan);
        double ms = (done - t0) / 1e6;
        PhaseCpu.Use cpu = measured.stop();
        worker.close(Duration.ofSeconds(10));
        completions.expectNoFailures(run.queue.name());
        return new Timed(ms, t0Epoch, cpu, completions);
    }

    /**
     * When Redis counts {@code n} completed jobs in {@code run}'s queue, once {@code ran} processors returned (the
     * last of them opens {@code allRan}: a waiting loop here would take CPU from the worker it measures).
     */
    private long awaitCompleted(Run run, int n, AtomicInteger ran, CountDownLatch allRan)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + params.timeout().toNanos();
        if (!allRan.await(params.timeout().toNanos(), TimeUnit.NANOSECONDS)) {
            throw new TimeoutException(ran.get() + " of " + n + " jobs ran after " + params.timeout());
        }
        while (true) {
            QueueStats totals = run.queue.stats(); // totals since the queue was made, whatever retention removed
            if (totals.completed() + totals.failed() >= n) {
                if (totals.failed() > 0) {
                    throw new IllegalStateException(run.queue.name() + ": " + totals.failed() + " jobs failed");
                }
                return System.nanoTime();
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("Redis counts fewer than " + n + " ended jobs after " + params.timeout());
            }
            Thread.sleep(1);
        }
    }

    /** Counts completions (and failures) as the engine reports them; optionally keeps each completed job. */
    static final class Completions implements QueueListener<String> {
        private final int expected;
        private final boolean record;
        private final CountDownLatch done = new CountDownLatch(1);
        final List<Job<String>> jobs = new ArrayList<>();
        final List<Double> at = new ArrayList<>();
        int completed;
        int failed;
        private long doneNanos;

        Completions(int expected, boolean record) {
            this.expected = expected;
            this.record = record;
        }

        @Override
        public synchronized void onCompleted(Job<String> job) {
            if (record) {
                jobs.add(job);
                at.add(epochMillis());
            }
            completed++;
            ended();
        }

        @Override
        public synchronized void onFailed(Job<String> job) {
            failed++;
            ended();
        }

        private void ended() {
            if (completed + failed == expected) {
                doneNanos = System.nanoTime();
                done.countDown();
            }
        }

        /** Waits for the expected endings; returns the {@link System#nanoTime()} of the last. */
        long await(Duration timeout) throws InterruptedException, TimeoutException {
            if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                synchronized (this) {
                    throw new TimeoutException(
                            completed + " completed and " + failed + " failed of " + expected + " after " + timeout);
                }
            }
            synchronized (this) {
                return doneNanos;
            }
        }

        synchronized void expectNoFailures(String what) {
            if (failed > 0) {
                throw new IllegalStateException(what + ": " + failed + " jobs failed");
            }
        }
    }

    static Sluice engine(String uri, String prefix) {
        return RedisSluice.builder()
                .url(uri)
                .keyPrefix(prefix)
                .commandTimeout(COMMAND_TIMEOUT)
                .build();
    }

    private static QueueOptions retaining(Retention completed) {
        return QueueOptions.builder()
                .jobDefaults(JobOptions.builder().keepCompleted(completed).build())
                .build();
    }

    double cpuMicros() {
        return PhaseCpu.redisMicros(admin);
    }

    /** A fresh engine (under a key prefix of its own) and queue; closing deletes every key it wrote. */
    Run open(String tag, QueueOptions options) {
        String prefix =
                "sb" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis() + "-" + RUNS.incrementAndGet();
        Sluice sluice = engine(uri, prefix);
        try {
            return new Run(prefix, sluice, sluice.queue("bench-" + tag, Codec.utf8(), options));
        } catch (RuntimeException e) {
            sluice.close();
            throw e;
        }
    }

    final class Run implements AutoCloseable {
        final String prefix;
        final Sluice sluice;
        final JobQueue<String> queue;
        Worker<String> worker;

        Run(String prefix, Sluice sluice, JobQueue<String> queue) {
            this.prefix = prefix;
            this.sluice = sluice;
            this.queue = queue;
        }

        @Override
        public void close() {
            try {
                if (worker != null) {
                    worker.close(Duration.ofSeconds(10));
                }
            } finally {
                sluice.close();
                admin.unlink(admin.scan(prefix + ":*"));
                List<String> left = admin.scan(prefix + ":*");
                if (!left.isEmpty()) {
                    throw new IllegalStateException("keys left under " + prefix + ": " + left);
                }
            }
        }
    }
}
