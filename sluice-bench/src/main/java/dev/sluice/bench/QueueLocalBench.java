package dev.sluice.bench;

import dev.sluice.bench.QueueResults.Json;
import dev.sluice.bench.QueueResults.Series;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Whole-batch throughput of Sluice's in-memory queue, side by side with a plain {@link
 * java.util.concurrent.ThreadPoolExecutor} doing the same no-op work (the ceiling for a queue in one JVM).
 *
 * <p>Each round measures every case once, interleaved so that the machine's noise hits every contender alike
 * (within a step the contenders' order rotates from round to round):
 *
 * <ol>
 *   <li>enqueue {@code jobs} jobs (100-byte payload, one job name) into a fresh queue: single {@code add} calls
 *       from one thread; {@code addBulk} in batches of 500; and, for reference, {@code execute} of as many
 *       fresh no-op tasks onto a held one-thread executor;
 *   <li>for each concurrency n in 1, 10, 100: process {@code jobs} waiting jobs with one Sluice worker of
 *       concurrency n and a no-op processor (clock: from creating the worker until every job completed);
 *       a ThreadPoolExecutor of n platform threads running as many queued no-op tasks (clock: from releasing
 *       its held threads until the last task ran); and the same executor on n virtual threads (Sluice's
 *       workers run on virtual threads).
 * </ol>
 *
 * <p>Every case starts from a fresh engine or executor, after a full GC, and no setup is timed. The first
 * {@code --warmup} rounds are thrown away. Writes one JSON document with every sample, the medians, the ratios
 * Sluice / executor (of the medians, and the median of the round-by-round ratios) and whether the targets are
 * met; also, per case, diagnostics measured around each timed part ({@link QueueMeter}: CPU time of the whole
 * process, bytes allocated, collections). {@code bench/summarize-queue-local.py} prints the Markdown tables.
 *
 * <p>Usage: {@code QueueLocalBench [--rounds 21] [--warmup 3] [--jobs 200000] [--concurrency 1,10,100]
 * [--only sluice|executor|sluice-process] [--out bench/results/queue-local.json]} ({@code sluice-process}: only
 * Sluice's processing cases, for profiling). Run with a fixed heap (e.g. {@code -Xms2g -Xmx2g}); the system
 * properties {@code sluice.bench.commit}, {@code sluice.bench.dirty} and {@code sluice.bench.engineSources} are
 * recorded as given.
 */
public final class QueueLocalBench {
    /** Target: enqueue at least this many jobs per second. */
    static final double ENQUEUE_TARGET = 1_000_000;

    /** Target: at concurrency 10, at least this fraction of the executor's rate. */
    static final double PROCESS_TARGET_RATIO = 0.5;

    static final int TARGET_CONCURRENCY = 10;

    static final String ADD = "enqueue.sluice.add";
    static final String ADD_BULK = "enqueue.sluice.addBulk500";
    static final String EXECUTE = "enqueue.executor.execute";

    private QueueLocalBench() {}

    static String sluice(int n) {
        return "process.sluice.c" + n;
    }

    static String tpe(int n) {
        return "process.executor.c" + n;
    }

    static String vtpe(int n) {
        return "process.virtualExecutor.c" + n;
    }

    public static void main(String[] args) throws Exception {
        int rounds = 21;
        int warmup = 3;
        int jobs = 200_000;
        int[] concurrencies = {1, 10, 100};
        String only = null;
        Path out = Path.of("bench/results/queue-local.json");
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--jobs" -> jobs = Integer.parseInt(value);
                case "--concurrency" ->
                    concurrencies = java.util.Arrays.stream(value.split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--only" -> only = value;
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
            i++;
        }
        boolean runSluice = only == null || only.equals("sluice") || only.equals("sluice-process");
        boolean runExecutor = only == null || only.equals("executor");
        boolean runEnqueue = only == null || !only.equals("sluice-process");

        QueueResults results = new QueueResults();
        results.series(ADD, "enqueue", "sluice add", 1);
        results.series(ADD_BULK, "enqueue", "sluice addBulk (500 per call)", 1);
        results.series(EXECUTE, "enqueue", "ThreadPoolExecutor.execute (held pool)", 1);
        for (int n : concurrencies) {
            results.series(sluice(n), "process", "sluice worker", n);
            results.series(tpe(n), "process", "ThreadPoolExecutor, platform threads", n);
            results.series(vtpe(n), "process", "ThreadPoolExecutor, virtual threads", n);
        }

        Instant began = Instant.now();
        String loadBefore = procLine("/proc/loadavg") + "; cpu pressure " + procLine("/proc/pressure/cpu");
        System.out.printf(
                Locale.ROOT,
                "QueueLocalBench: %d jobs, %d warm-up + %d measured rounds, concurrency %s, %s%n",
                jobs,
                warmup,
                rounds,
                java.util.Arrays.toString(concurrencies),
                Runtime.version());
        for (int round = 0; round < warmup + rounds; round++) {
            boolean measured = round >= warmup;
            String label = measured ? "round " + (round - warmup + 1) : "warm-up " + (round + 1);
            StringBuilder line = new StringBuilder(label + ":");
            // step 1: enqueue, contenders in rotating order
            List<String> enqueue = new ArrayList<>();
            if (runSluice) {
                enqueue.add(ADD);
                enqueue.add(ADD_BULK);
            }
            if (runExecutor) {
                enqueue.add(EXECUTE);
            }
            if (!runEnqueue) {
                enqueue.clear();
            }
            for (String id : rotate(enqueue, round)) {
                QueueMeter.Timing nanos = switch (id) {
                    case ADD -> QueueCases.sluiceAdd(jobs);
                    case ADD_BULK -> QueueCases.sluiceAddBulk(jobs);
                    case EXECUTE -> QueueCases.executorExecute(jobs);
                    default -> throw new AssertionError(id);
                };
                record(results, id, jobs, nanos, measured, line);
            }
            // step 2: processing at each concurrency, contenders in rotating order
            for (int n : concurrencies) {
                List<String> process = new ArrayList<>();
                if (runSluice) {
                    process.add(sluice(n));
                }
                if (runExecutor) {
                    process.add(tpe(n));
                    process.add(vtpe(n));
                }
                for (String id : rotate(process, round)) {
                    QueueMeter.Timing nanos;
                    if (id.equals(sluice(n))) {
                        nanos = QueueCases.sluiceProcess(jobs, n);
                    } else if (id.equals(tpe(n))) {
                        nanos = QueueCases.executorProcess(jobs, n, false);
                    } else {
                        nanos = QueueCases.executorProcess(jobs, n, true);
                    }
                    record(results, id, jobs, nanos, measured, line);
                }
            }
            System.out.println(line);
        }
        long seconds = ChronoUnit.SECONDS.between(began, Instant.now());
        System.out.printf(Locale.ROOT, "done in %d s%n", seconds);

        String loadAfter = procLine("/proc/loadavg") + "; cpu pressure " + procLine("/proc/pressure/cpu");
        String json = toJson(results, jobs, warmup, rounds, concurrencies, began, seconds, loadBefore, loadAfter);
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, json);
        System.out.println("wrote " + out);
        printSummary(results, concurrencies);
    }

    private static void record(
            QueueResults results, String id, int jobs, QueueMeter.Timing timing, boolean measured, StringBuilder line) {
        if (measured) {
            results.get(id).add(jobs, timing);
        }
        String shortId = id.replace("enqueue.", "").replace("process.", "").replace("virtualExecutor", "vexec");
        line.append(String.format(
                Locale.ROOT,
                " %s=%.0fk/s(%.1fcpu,%dgc)",
                shortId,
                jobs * 1e6 / timing.nanos(),
                (double) timing.cpuNanos() / timing.nanos(),
                timing.gcCount()));
    }

    /** {@code items} rotated left by {@code round}: each contender goes first in turn. */
    static <T> List<T> rotate(List<T> items, int round) {
        List<T> rotated = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            rotated.add(items.get((i + round) % items.size()));
        }
        return rotated;
    }

    /** Before each timed part: a full GC and a short pause, so no case pays for the garbage of the last one. */
    static void settle() {
        System.gc();
        LockSupport.parkNanos(50_000_000L);
    }

    private static void printSummary(QueueResults results, int[] concurrencies) {
        System.out.println();
        System.out.println(
                "case                                 median jobs/s        min        max  CPUs busy  CPU ns/job  alloc B/job  GCs");
        for (Series s : results.series.values()) {
            if (!s.jobsPerSecond.isEmpty()) {
                System.out.printf(
                        Locale.ROOT,
                        "%-36s %13.0f %10.0f %10.0f %10.2f %11.0f %12.0f %4.0f%n",
                        s.id,
                        s.median(),
                        s.min(),
                        s.max(),
                        s.medianCpusBusy(),
                        s.medianCpuNanosPerJob(),
                        s.medianAllocatedBytesPerJob(),
                        s.medianGcCount());
            }
        }
        for (int n : concurrencies) {
            if (results.has(sluice(n)) && results.has(tpe(n))) {
                System.out.printf(
                        Locale.ROOT,
                        "c%d: sluice / executor %.3f (median of per-round ratios %.3f); sluice / virtual executor %.3f%n",
                        n,
                        results.get(sluice(n)).median() / results.get(tpe(n)).median(),
                        QueueResults.median(results.pairedRatios(sluice(n), tpe(n))),
                        results.get(sluice(n)).median() / results.get(vtpe(n)).median());
            }
        }
    }

    static String toJson(
            QueueResults results,
            int jobs,
            int warmup,
            int rounds,
            int[] concurrencies,
            Instant began,
            long seconds,
            String loadBefore,
            String loadAfter) {
        Json json = new Json().begin();
        json.header("dev.sluice.bench.QueueLocalBench", began, seconds);

        json.object("jdk")
                .field("version", Runtime.version().toString())
                .field("vendor", System.getProperty("java.vendor"))
                .field("vm", System.getProperty("java.vm.name"))
                .strings("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments())
                .strings(
                        "gc",
                        ManagementFactory.getGarbageCollectorMXBeans().stream()
                                .map(GarbageCollectorMXBean::getName)
                                .toList())
                .field("maxHeapBytes", Runtime.getRuntime().maxMemory())
                .field("cpuTimeSource", QueueMeter.cpuSource())
                .end();
        json.object("machine")
                .field("cpu", cpuModel())
                .field("availableProcessors", Runtime.getRuntime().availableProcessors())
                .field("memTotal", memTotal())
                .field("loadBefore", loadBefore)
                .field("loadAfter", loadAfter)
                .field(
                        "os",
                        System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                                + System.getProperty("os.arch"))
                .end();
        json.object("workload")
                .field("jobsPerBatch", jobs)
                .field("payloadBytes", QueueCases.PAYLOAD.length())
                .field("jobName", QueueCases.JOB_NAME)
                .field("bulkBatch", QueueCases.BULK_BATCH)
                .numbers(
                        "concurrency",
                        java.util.Arrays.stream(concurrencies).boxed().toList(),
                        0)
                .field("warmupRounds", warmup)
                .field("measuredRounds", rounds)
                .field(
                        "clock",
                        "enqueue: first add to last add returned, one thread, fresh queue; process: sluice from"
                                + " creating the worker until the processor counted the last job and counts() shows"
                                + " nothing waiting or active; executors from releasing the held threads until the"
                                + " last task ran. Full GC before each timed part; setup untimed.")
                .end();

        json.object("cases");
        for (Series s : results.series.values()) {
            if (s.jobsPerSecond.isEmpty()) {
                continue;
            }
            json.object(s.id)
                    .field("kind", s.kind)
                    .field("contender", s.contender)
                    .field("concurrency", s.concurrency)
                    .field("medianJobsPerSecond", s.median(), 0)
                    .field("minJobsPerSecond", s.min(), 0)
                    .field("maxJobsPerSecond", s.max(), 0)
                    .field("medianCpusBusy", s.medianCpusBusy(), 2)
                    .field("medianCpuNanosPerJob", s.medianCpuNanosPerJob(), 0)
                    .field("medianAllocatedBytesPerJob", s.medianAllocatedBytesPerJob(), 0)
                    .field("medianGcCount", s.medianGcCount(), 1)
                    .numbers("jobsPerSecond", s.jobsPerSecond, 0)
                    .numbers("nanos", s.nanos, 0)
                    .numbers("processCpuNanos", s.cpuNanos, 0)
                    .numbers("allocatedBytes", s.allocatedBytes, 0)
                    .numbers("gcCount", s.gcCount, 0)
                    .numbers("gcMillis", s.gcMillis, 0)
                    .end();
        }
        json.end();

        json.object("ratios");
        for (int n : concurrencies) {
            if (!results.has(sluice(n)) || !results.has(tpe(n))) {
                continue;
            }
            List<Double> paired = results.pairedRatios(sluice(n), tpe(n));
            List<Double> pairedVirtual = results.pairedRatios(sluice(n), vtpe(n));
            json.object("c" + n)
                    .field(
                            "sluiceOverExecutor",
                            results.get(sluice(n)).median()
                                    / results.get(tpe(n)).median(),
                            3)
                    .field("sluiceOverExecutorPairedMedian", QueueResults.median(paired), 3)
                    .numbers("sluiceOverExecutorPerRound", paired, 3)
                    .field(
                            "sluiceOverVirtualExecutor",
                            results.get(sluice(n)).median()
                                    / results.get(vtpe(n)).median(),
                            3)
                    .field("sluiceOverVirtualExecutorPairedMedian", QueueResults.median(pairedVirtual), 3)
                    .numbers("sluiceOverVirtualExecutorPerRound", pairedVirtual, 3)
                    .end();
        }
        if (results.has(ADD) && results.has(EXECUTE)) {
            json.object("enqueue")
                    .field(
                            "addOverExecute",
                            results.get(ADD).median() / results.get(EXECUTE).median(),
                            3)
                    .field(
                            "addBulkOverExecute",
                            results.get(ADD_BULK).median()
                                    / results.get(EXECUTE).median(),
                            3)
                    .end();
        }
        json.end();

        json.object("targets");
        if (results.has(ADD)) {
            json.object("enqueueAdd")
                    .field("target", "single add, median >= 1,000,000 jobs/s")
                    .field("medianJobsPerSecond", results.get(ADD).median(), 0)
                    .field("met", results.get(ADD).median() >= ENQUEUE_TARGET)
                    .end();
            json.object("enqueueAddBulk")
                    .field("target", "addBulk (500 per call), median >= 1,000,000 jobs/s")
                    .field("medianJobsPerSecond", results.get(ADD_BULK).median(), 0)
                    .field("met", results.get(ADD_BULK).median() >= ENQUEUE_TARGET)
                    .end();
        }
        int n = TARGET_CONCURRENCY;
        if (results.has(sluice(n)) && results.has(tpe(n))) {
            double ofMedians =
                    results.get(sluice(n)).median() / results.get(tpe(n)).median();
            double paired = QueueResults.median(results.pairedRatios(sluice(n), tpe(n)));
            json.object("processC10")
                    .field("target", "concurrency 10: sluice >= 0.5 x platform-thread ThreadPoolExecutor")
                    .field("ratioOfMedians", ofMedians, 3)
                    .field("pairedMedianRatio", paired, 3)
                    .field("met", ofMedians >= PROCESS_TARGET_RATIO && paired >= PROCESS_TARGET_RATIO)
                    .end();
        }
        json.end();
        return json.end().toString();
    }

    /** The first line of a /proc file (load average, CPU pressure: how busy the shared machine was), or "n/a". */
    static String procLine(String file) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            return lines.isEmpty() ? "n/a" : lines.get(0).trim();
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }

    /** The CPU's model name from {@code /proc/cpuinfo}, or the architecture where there is none. */
    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return System.getProperty("os.arch");
    }

    private static String memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return line.substring("MemTotal:".length()).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through
        }
        return "unknown";
    }
}
