package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this JVM's threads spend per job at a steady pace: one thread adds jobs at a fixed rate to a queue whose worker
 * of 10 slots completes them at once, in rounds; after each round it prints the jobs done and the CPU microseconds per
 * job, of the whole process and by thread (names without their numbers, from {@code /proc/self/task/}{@code
 * *}{@code /stat}, so Linux only). Later rounds show the steady state a service lives in, after the JIT has compiled.
 *
 * <p>Usage: {@code java -cp sluice-bench/target/benchmarks.jar dev.sluice.bench.PacedQueueProbe [redis URL] [jobs per
 * second] [seconds per round]} (defaults {@code redis://127.0.0.1:6379}, 1,000, 8); four rounds, on a fresh queue.
 */
public final class PacedQueueProbe {
    private static final int ROUNDS = 4;

    private PacedQueueProbe() {}

    /**
     * Runs the probe.
     *
     * @param args the Redis URL, the jobs per second and the seconds per round, each optional
     * @throws Exception if Redis cannot be reached or the probe is interrupted
     */
    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        try (Sluice sluice = RedisSluice.connect(url)) {
            JobQueue<String> queue = sluice.queue("paced-probe-" + System.nanoTime(), Codec.utf8());
            AtomicLong done = new AtomicLong();
            queue.worker(
                    job -> {
                        done.incrementAndGet();
                        return Result.done();
                    },
                    WorkerOptions.concurrency(10));
            for (int round = 1; round <= ROUNDS; round++) {
                Map<String, Long> before = cpuByThread();
                long doneBefore = done.get();
                long t0 = System.nanoTime();
                int sent = 0;
                while (System.nanoTime() - t0 < seconds * 1_000_000_000L) {
                    long due = (System.nanoTime() - t0) * rate / 1_000_000_000L;
                    for (; sent < due; sent++) {
                        queue.addAsync("job", "p" + sent);
                    }
                    Thread.sleep(1);
                }
                Map<String, Long> after = cpuByThread();
                long jobs = Math.max(1, done.get() - doneBefore);
                long total = 0;
                StringBuilder threads = new StringBuilder();
                for (Map.Entry<String, Long> e : after.entrySet()) {
                    long used = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                    total += used;
                    if (used > 0) {
                        threads.append(String.format("  %-20s %7.1f µs/job%n", e.getKey(), used / (double) jobs));
                    }
                }
                System.out.printf(
                        "round %d: %d jobs, %.1f µs of CPU per job%n%s", round, jobs, total / (double) jobs, threads);
            }
        }
    }

    /**
     * CPU microseconds (user + system, counted in the kernel's ticks of 10 ms) of this process's threads so far, by
     * thread name without its numbers.
     */
    private static Map<String, Long> cpuByThread() throws IOException {
        Map<String, Long> byName = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                        .replaceAll("[0-9-]+$", "");
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                byName.merge(name, ticks * 10_000L, Long::sum);
            }
        }
        return byName;
    }
}
