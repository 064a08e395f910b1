package dev.sluice.bench.adaptive.live;

import dev.sluice.Sluice;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.redis.RedisSluice;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Adaptive rates with real processes on Redis: three worker JVMs ({@link LiveWorker}) share one queue whose {@link
 * #RATE} is adaptive, against a local HTTP downstream ({@link LiveDownstream}) whose capacity is 150 calls a second,
 * then 40 from {@link #DROP_AT} to {@link #BACK_AT}, then 150 again; at {@link #KILL_AT} one worker is killed with
 * SIGKILL. The run's clock starts once every worker is ready. This process keeps a backlog of jobs and reads, once a second, what the downstream accepted and refused,
 * and the queue's rate in force (one number, in Redis, for every process). Arguments: the Redis URL (a Redis of its
 * own: the run flushes nothing, but its queue's name is fixed), the results folder. Writes {@code adaptive-redis.json}
 * and {@code adaptive-redis.md} there.
 */
public final class LiveRun {
    static final String QUEUE = "live-adaptive";
    static final int CONCURRENCY = 32;
    static final int WORKERS = 3;
    static final double HIGH = 150;
    static final double LOW = 40;
    static final int DROP_AT = 12;
    static final int BACK_AT = 27;
    static final int KILL_AT = 42;
    static final int LENGTH = 55;
    static final AdaptiveRate RATE = AdaptiveRate.of(Gcra.of(300, Duration.ofSeconds(1), 30))
            .withFloor(5)
            .withStart(100);

    private LiveRun() {}

    static QueueOptions options() {
        return QueueOptions.builder().rate(RATE).build();
    }

    static double capacity(long elapsedNanos) {
        double seconds = elapsedNanos / 1e9;
        return seconds >= DROP_AT && seconds < BACK_AT ? LOW : HIGH;
    }

    /** One second of the run as measured. */
    record Second(int second, double capacity, long accepted, long refused, double rate, List<Long> perProcess) {}

    /**
     * Runs the live bench.
     *
     * @param args the Redis URL and the results folder
     * @throws Exception if a process cannot start or the results cannot be written
     */
    public static void main(String[] args) throws Exception {
        String redis = args[0];
        Path out = Path.of(args[1]);
        List<Process> workers = new ArrayList<>();
        List<Second> seconds = new ArrayList<>();
        try (Sluice sluice = RedisSluice.connect(redis);
                LiveDownstream downstream = new LiveDownstream(LiveRun::capacity)) {
            JobQueue<String> queue = sluice.queue(QUEUE, Codec.utf8(), options());
            fill(queue);
            String java = ProcessHandle.current().info().command().orElse("java");
            for (int i = 1; i <= WORKERS; i++) {
                workers.add(new ProcessBuilder(
                                java,
                                "-cp",
                                System.getProperty("java.class.path"),
                                LiveWorker.class.getName(),
                                redis,
                                Integer.toString(downstream.port()),
                                "p" + i)
                        .redirectErrorStream(true)
                        .start());
            }
            CountDownLatch ready = new CountDownLatch(WORKERS);
            for (Process worker : workers) {
                Thread.ofVirtual().start(() -> echo(worker, ready));
            }
            if (!ready.await(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the workers were not ready within 2 minutes");
            }
            downstream.begin();
            for (int s = 0; s < LENGTH; s++) {
                long boundary = (s + 1) * 1_000_000_000L;
                while (downstream.elapsed() < boundary) {
                    fill(queue);
                    Thread.sleep(Math.max(1, Math.min(100, (boundary - downstream.elapsed()) / 1_000_000)));
                }
                if (s + 1 == KILL_AT) {
                    workers.get(WORKERS - 1).destroyForcibly(); // SIGKILL: no close, its leases are left to expire
                }
                QueueStats.Rate rate = queue.stats().rate();
                Thread.sleep(LiveDownstream.LATENCY_MILLIS * 3L); // the second's last calls answer
                List<Long> perProcess = new ArrayList<>();
                for (int i = 1; i <= WORKERS; i++) {
                    var counts = downstream.acceptedByProcess.get("p" + i);
                    perProcess.add(counts == null ? 0 : LiveDownstream.at(counts, s));
                }
                Second second = new Second(
                        s,
                        capacity(s * 1_000_000_000L),
                        LiveDownstream.at(downstream.accepted, s),
                        LiveDownstream.at(downstream.refused, s),
                        rate == null ? Double.NaN : rate.perSecond(),
                        perProcess);
                seconds.add(second);
                System.out.printf(
                        "%3d s  capacity %5.0f  accepted %4d  429 %4d  rate %6.1f  per process %s%n",
                        s, second.capacity(), second.accepted(), second.refused(), second.rate(), perProcess);
            }
            queue.drain(true);
        } finally {
            workers.forEach(Process::destroyForcibly);
        }
        LiveReport report = new LiveReport(seconds);
        Files.writeString(out.resolve("adaptive-redis.json"), report.json(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("adaptive-redis.md"), report.markdown(), StandardCharsets.UTF_8);
        System.out.println(report.summary());
    }

    /** Copies what {@code worker} prints to this process's output, counting down {@code ready} at its "ready" line. */
    private static void echo(Process worker, CountDownLatch ready) {
        try (BufferedReader lines = worker.inputReader(StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                System.out.println(line);
                if (line.startsWith("ready ")) {
                    ready.countDown();
                }
            }
        } catch (IOException e) {
            System.out.println("a worker's output ended: " + e.getMessage());
        }
    }

    /** Keeps at least 2,000 jobs waiting: demand is always above capacity. */
    private static void fill(JobQueue<String> queue) {
        if (queue.counts().waiting() < 2_000) {
            List<NewJob<String>> jobs = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                jobs.add(new NewJob<>("call", "x"));
            }
            queue.addBulk(jobs);
        }
    }
}
