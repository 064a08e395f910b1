package dev.sluice.bench;

import static dev.sluice.bench.QueueRedisScenarios.engine;
import static dev.sluice.bench.QueueRedisScenarios.epochMillis;
import static dev.sluice.bench.QueueRedisScenarios.seqOf;

import dev.sluice.Sluice;
import dev.sluice.bench.QueueRedisScenarios.Completions;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Scenarios D and E of {@link QueueRedisScenarios}: a queue whose rate is a sliding log of {@code limitMax} starts per
 * {@code limitMillis}, run by one worker (D) and by workers in two processes (E, the second a child JVM started with
 * {@code --child-worker}), and how exactly the starts kept the rate by the engine's stamps.
 */
final class QueueLimitScenarios {
    private final QueueRedisScenarios scenarios;

    QueueLimitScenarios(QueueRedisScenarios scenarios) {
        this.scenarios = scenarios;
    }

    /** The rate of D and E: a sliding log of {@code limitMax} starts per {@code limitMillis}. */
    static SlidingWindowLog rate(int limitMax, int limitMillis) {
        return SlidingWindowLog.of(limitMax, Duration.ofMillis(limitMillis));
    }

    /** The queue of D and E: a sliding-log rate of {@code limitMax} per {@code limitMillis}. */
    static QueueOptions limited(int limitMax, int limitMillis, Retention completed) {
        return QueueOptions.builder()
                .rate(rate(limitMax, limitMillis))
                .jobDefaults(JobOptions.builder().keepCompleted(completed).build())
                .build();
    }

    /** Scenario D: one worker process under the queue's rate. */
    Map<String, Double> oneWorker() throws Exception {
        int n = scenarios.params().limJobs();
        try (QueueRedisScenarios.Run run = scenarios.open(
                "D", limited(scenarios.params().limitMax(), scenarios.params().limitMillis(), Retention.keepNone()))) {
            scenarios.addBulkAll(run.queue, n);
            StartLog starts = new StartLog();
            run.queue.addListener(starts);
            QueueRedisScenarios.Timed timed =
                    scenarios.runWorker(run, n, scenarios.params().limConcurrency(), starts.processor(), true);
            double end;
            synchronized (timed.completions()) {
                end = timed.completions().at.stream()
                        .mapToDouble(Double::doubleValue)
                        .max()
                        .orElseThrow();
            }
            Map<String, Double> figures = QueueRedisFigures.limiterFigures(
                    starts.invoked(),
                    starts.stamped(),
                    timed.t0Epoch(),
                    end,
                    scenarios.params().limitMillis());
            putDelays(figures, starts.delays());
            figures.put("redis_cpu_us_per_job", timed.cpu().redisMicros() / n);
            return figures;
        }
    }

    /** Scenario E: two worker processes under one queue rate. */
    Map<String, Double> twoProcesses() throws Exception {
        int n = scenarios.params().limJobs();
        try (QueueRedisScenarios.Run run = scenarios.open(
                "E", limited(scenarios.params().limitMax(), scenarios.params().limitMillis(), Retention.keepAll()))) {
            scenarios.addBulkAll(run.queue, n);
            Child child = Child.start(
                    scenarios.childCommand(), scenarios.uri(), run.prefix, run.queue.name(), scenarios.params());
            try {
                child.expect("ready", Duration.ofSeconds(60));
                StartLog starts = new StartLog();
                Completions done = new Completions(Integer.MAX_VALUE, true);
                run.queue.addListener(starts);
                run.queue.addListener(done);
                Worker<String> worker = run.queue.worker(
                        starts.processor(),
                        WorkerOptions.concurrency(scenarios.params().limConcurrency()).toBuilder()
                                .autoStart(false)
                                .build());
                run.worker = worker;

                double cpu0 = scenarios.cpuMicros();
                double t0Epoch = epochMillis();
                child.send("start");
                worker.start();
                long deadline = System.nanoTime() + scenarios.params().timeout().toNanos();
                while (true) {
                    JobCounts counts = run.queue.counts();
                    if (counts.completed() + counts.failed() >= n) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new TimeoutException(
                                "E: " + counts + " after " + scenarios.params().timeout());
                    }
                    Thread.sleep(50);
                }
                double cpu = scenarios.cpuMicros() - cpu0;
                child.send("stop");
                Reported theirs = Reported.parse(child.expect("result", Duration.ofSeconds(60)));
                worker.close(Duration.ofSeconds(10));
                child.awaitExit(Duration.ofSeconds(30));
                Reported ours = Reported.of(starts, done);
                if (ours.failed + theirs.failed > 0) {
                    throw new IllegalStateException("E: " + (ours.failed + theirs.failed) + " jobs failed");
                }
                double[] invoked = concat(ours.invoked, theirs.invoked);
                if (invoked.length != n) {
                    throw new IllegalStateException("E: expected " + n + " starts, got " + invoked.length);
                }
                double end = Arrays.stream(concat(ours.completedAt, theirs.completedAt))
                        .max()
                        .orElseThrow();
                Map<String, Double> figures = QueueRedisFigures.limiterFigures(
                        invoked,
                        concat(ours.stamped, theirs.stamped),
                        t0Epoch,
                        end,
                        scenarios.params().limitMillis());
                putDelays(figures, concat(ours.delays, theirs.delays));
                figures.put("jobs_in_parent", (double) ours.invoked.length);
                figures.put("jobs_in_child", (double) theirs.invoked.length);
                figures.put("redis_cpu_us_per_job", cpu / n);
                return figures;
            } finally {
                child.destroy();
            }
        }
    }

    /** Percentiles of how long after the engine's start stamp each processor was invoked. */
    private static void putDelays(Map<String, Double> figures, double[] delays) {
        double[] sorted = delays.clone();
        Arrays.sort(sorted);
        figures.put("start_delay_p50_ms", QueueRedisFigures.percentile(sorted, 0.5));
        figures.put("start_delay_p99_ms", QueueRedisFigures.percentile(sorted, 0.99));
        figures.put("start_delay_max_ms", sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1]);
    }

    /**
     * The starts of D and E, by job (the {@code seq} of its payload): when its processor was invoked (epoch
     * milliseconds, this JVM's clock), and the engine's start stamp as {@link QueueListener#onActive} reports it
     * (Redis's clock, when the job was claimed).
     */
    static final class StartLog implements QueueListener<String> {
        private final Map<Integer, Double> invoked = new TreeMap<>();
        private final Map<Integer, Double> stamped = new TreeMap<>();

        /** The processor: records when it is invoked, then completes the job. */
        Processor<String> processor() {
            return job -> {
                double now = epochMillis();
                int seq = seqOf(job.payload());
                synchronized (this) {
                    invoked.put(seq, now);
                }
                return Result.done();
            };
        }

        @Override
        public synchronized void onActive(Job<String> job) {
            if (job.startedAt() != null && job.payload() != null) {
                stamped.put(seqOf(job.payload()), epochMillis(job.startedAt()));
            }
        }

        synchronized double[] invoked() {
            return invoked.values().stream().mapToDouble(Double::doubleValue).toArray();
        }

        /**
         * The engine's start stamps of the jobs this process ran: its listener hears the starts of every process's
         * workers, and each process reports its own.
         */
        synchronized double[] stamped() {
            return stamped.entrySet().stream()
                    .filter(e -> invoked.containsKey(e.getKey()))
                    .mapToDouble(Map.Entry::getValue)
                    .toArray();
        }

        /** Processor-invoked minus stamped, for every job that has both. */
        synchronized double[] delays() {
            return invoked.entrySet().stream()
                    .filter(e -> stamped.containsKey(e.getKey()))
                    .mapToDouble(e -> e.getValue() - stamped.get(e.getKey()))
                    .toArray();
        }
    }

    private static double[] concat(double[] a, double[] b) {
        double[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    /**
     * The second worker process of scenario E: opens the queue as the first does, says {@code ready} on {@code
     * out}, starts its worker at {@code start} on {@code in}, and at {@code stop} closes it and answers one
     * {@code result} line ({@link Reported#line()}).
     */
    static void childWorker(
            String uri,
            String prefix,
            String queueName,
            int concurrency,
            int limitMax,
            int limitMillis,
            InputStream in,
            PrintStream out)
            throws IOException {
        try (Sluice sluice = engine(uri, prefix)) {
            JobQueue<String> queue =
                    sluice.queue(queueName, Codec.utf8(), limited(limitMax, limitMillis, Retention.keepAll()));
            StartLog starts = new StartLog();
            Completions done = new Completions(Integer.MAX_VALUE, true);
            queue.addListener(starts);
            queue.addListener(done);
            Worker<String> worker = queue.worker(
                    starts.processor(),
                    WorkerOptions.builder()
                            .concurrency(concurrency)
                            .autoStart(false)
                            .build());
            out.println("ready");
            out.flush();
            BufferedReader commands = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line; (line = commands.readLine()) != null; ) {
                if (line.equals("start")) {
                    worker.start();
                } else if (line.equals("stop")) {
                    worker.close(Duration.ofSeconds(10));
                    out.println(Reported.of(starts, done).line());
                    out.flush();
                    return;
                }
            }
        }
    }

    /**
     * What one process of scenario E saw: failures, processor-invoked times, the engine's start stamps,
     * completion times (epoch milliseconds) and start delays.
     */
    record Reported(int failed, double[] invoked, double[] stamped, double[] completedAt, double[] delays) {
        static Reported of(StartLog starts, Completions done) {
            synchronized (done) {
                return new Reported(
                        done.failed,
                        starts.invoked(),
                        starts.stamped(),
                        done.at.stream().mapToDouble(Double::doubleValue).toArray(),
                        starts.delays());
            }
        }

        /** {@code result}, then each field, tab-separated; arrays comma-separated. */
        String line() {
            return String.join(
                    "\t",
                    "result",
                    Integer.toString(failed),
                    csv(invoked),
                    csv(stamped),
                    csv(completedAt),
                    csv(delays));
        }

        static Reported parse(String line) {
            String[] parts = line.split("\t", -1);
            if (parts.length != 6 || !parts[0].equals("result")) {
                throw new IllegalStateException("malformed result line from the second worker: " + line);
            }
            return new Reported(
                    Integer.parseInt(parts[1]),
                    parseCsv(parts[2]),
                    parseCsv(parts[3]),
                    parseCsv(parts[4]),
                    parseCsv(parts[5]));
        }

        private static String csv(double[] values) {
            StringBuilder sb = new StringBuilder();
            for (double v : values) {
                if (!sb.isEmpty()) {
                    sb.append(',');
                }
                sb.append(v);
            }
            return sb.toString();
        }

        private static double[] parseCsv(String text) {
            return text.isEmpty()
                    ? new double[0]
                    : Arrays.stream(text.split(","))
                            .mapToDouble(Double::parseDouble)
                            .toArray();
        }
    }

    /** The second worker JVM of scenario E, spoken to over its standard input and output. */
    private static final class Child {
        private final Process process;
        private final Writer commands;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        private Child(Process process) {
            this.process = process;
            this.commands = process.outputWriter(StandardCharsets.UTF_8);
            Thread reader = new Thread(this::readLines, "queue-redis-bench-child-reader");
            reader.setDaemon(true);
            reader.start();
        }

        static Child start(
                List<String> javaCommand, String uri, String prefix, String queue, QueueRedisScenarios.Params params)
                throws IOException {
            List<String> command = new ArrayList<>(javaCommand);
            command.addAll(List.of(
                    "--child-worker",
                    queue,
                    "--redis",
                    uri,
                    "--prefix",
                    prefix,
                    "--concurrency",
                    Integer.toString(params.limConcurrency()),
                    "--limit-max",
                    Integer.toString(params.limitMax()),
                    "--limit-duration",
                    Integer.toString(params.limitMillis())));
            return new Child(new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start());
        }

        private void readLines() {
            try (BufferedReader reader =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended: expect() times out or sees it dead
            }
        }

        void send(String command) throws IOException {
            commands.write(command + "\n");
            commands.flush();
        }

        /** The next line that begins with {@code word}; other lines (a library's notices) are skipped. */
        String expect(String word, Duration timeout) throws InterruptedException, TimeoutException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new TimeoutException("the second worker process said no '" + word + "' within " + timeout
                            + (process.isAlive() ? "" : "; it exited with " + process.exitValue()));
                }
                if (line.equals(word) || line.startsWith(word + "\t")) {
                    return line;
                }
            }
        }

        void awaitExit(Duration timeout) throws InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the second worker process did not exit within " + timeout);
            }
        }

        void destroy() {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }
}
