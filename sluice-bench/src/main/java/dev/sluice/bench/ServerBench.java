package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.redis.RedisSluice;
import dev.sluice.server.SluiceServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cost of Sluice's HTTP API against the Java call it makes, side by side in one JVM (bench/run-server.sh):
 *
 * <ol>
 *   <li>for each engine (in memory, then the Redis at a URL): a {@link SluiceServer} over it on a free loopback port;
 *       a warm-up; then R runs, each of wrk adding jobs over the API ({@code POST /api/v1/queues/{q}/jobs}, with
 *       {@code bench/server-add.lua}) for S s with C connections, then as many {@code queue.add} calls as wrk made,
 *       from C threads in this JVM (the server idle), each run into a fresh queue that is removed afterwards;
 *   <li>on Redis, the cost of open dashboards on Redis's CPU ({@link ServerDashboards}).
 * </ol>
 *
 * Prints Markdown tables (medians of the runs) and every run's figures.
 *
 * <p>Usage: {@code ServerBench REDIS_URL LUA_SCRIPT [runs seconds connections wrkThreads dashboardSeconds
 * dashboardRounds]}
 */
public final class ServerBench {
    private static final String PAYLOAD = "x".repeat(100);
    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in");
    private static final Pattern PER_SECOND = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern P50 = Pattern.compile("\\n\\s+50%\\s+([0-9.]+)(us|ms|s)");
    private static final Pattern P99 = Pattern.compile("\\n\\s+99%\\s+([0-9.]+)(us|ms|s)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
    private static final Pattern SOCKET_ERRORS = Pattern.compile("Socket errors: (.*)");

    private ServerBench() {}

    /** One run: the API's adds (wrk) and the same number of Java adds. */
    record Run(
            long apiAdds,
            double apiPerSecond,
            double apiP50Ms,
            double apiP99Ms,
            long refused,
            double javaPerSecond,
            double javaP50Ms,
            double javaP99Ms) {}

    /**
     * Runs the benchmark.
     *
     * @param args as the class comment says
     * @throws Exception if wrk cannot run, or the engine fails
     */
    public static void main(String[] args) throws Exception {
        String redisUrl = args[0];
        String lua = args[1];
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        int connections = args.length > 4 ? Integer.parseInt(args[4]) : 32;
        int wrkThreads = args.length > 5 ? Integer.parseInt(args[5]) : 2;
        int dashboardSeconds = args.length > 6 ? Integer.parseInt(args[6]) : 30;
        int dashboardRounds = args.length > 7 ? Integer.parseInt(args[7]) : 3;

        Map<String, List<Run>> results = new LinkedHashMap<>();
        for (String engine : List.of("in-memory", "Redis")) {
            try (Sluice sluice = engine.equals("Redis") ? redis(redisUrl, "adds") : Sluice.inMemory();
                    SluiceServer server = SluiceServer.builder(sluice).port(0).start()) {
                String base = server.uri() + "api/v1/queues/";
                JobQueue<String> warm = sluice.queue("warm-up", Codec.utf8());
                wrk(lua, base + "warm-up/jobs", 5, connections, wrkThreads);
                javaAdds(warm, 20_000, connections);
                warm.obliterate(true);
                List<Run> engineRuns = new ArrayList<>();
                for (int run = 1; run <= runs; run++) {
                    JobQueue<String> api = sluice.queue("api-" + run, Codec.utf8());
                    String out = wrk(lua, base + api.name() + "/jobs", seconds, connections, wrkThreads);
                    long adds = Long.parseLong(find(REQUESTS, out));
                    JobQueue<String> java = sluice.queue("java-" + run, Codec.utf8());
                    double[] javaFigures = javaAdds(java, adds, connections);
                    Run r = new Run(
                            adds,
                            Double.parseDouble(find(PER_SECOND, out)),
                            millis(P50, out),
                            millis(P99, out),
                            refused(out),
                            javaFigures[0],
                            javaFigures[1],
                            javaFigures[2]);
                    System.out.printf(
                            Locale.ROOT,
                            "%s run %d: API %.0f adds/s (p50 %.3f ms, p99 %.3f ms, %d not 201), Java %.0f adds/s (p50"
                                    + " %.4f ms, p99 %.4f ms), %d adds each%n",
                            engine,
                            run,
                            r.apiPerSecond(),
                            r.apiP50Ms(),
                            r.apiP99Ms(),
                            r.refused(),
                            r.javaPerSecond(),
                            r.javaP50Ms(),
                            r.javaP99Ms(),
                            adds);
                    engineRuns.add(r);
                    api.obliterate(true);
                    java.obliterate(true);
                }
                results.put(engine, engineRuns);
            }
        }
        printAdds(results, connections, wrkThreads, seconds);

        List<ServerDashboards.Reading> readings;
        try (Sluice sluice = redis(redisUrl, "dashboards");
                SluiceServer server = SluiceServer.builder(sluice).port(0).start()) {
            readings = new ServerDashboards(sluice, server.uri(), redisUrl).measure(dashboardSeconds, dashboardRounds);
        }
        ServerDashboards.print(readings, dashboardSeconds);
    }

    private static Sluice redis(String url, String what) {
        return RedisSluice.builder()
                .url(url)
                .keyPrefix("bench-server-" + what + "-" + System.nanoTime())
                .build();
    }

    /** Runs wrk and returns what it printed; fails if it failed. */
    private static String wrk(String lua, String url, int seconds, int connections, int threads)
            throws IOException, InterruptedException {
        Process wrk = new ProcessBuilder(
                        "wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s", "--latency", "-s", lua, url)
                .redirectErrorStream(true)
                .start();
        String out;
        try (InputStream in = wrk.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (wrk.waitFor() != 0) {
            throw new IllegalStateException("wrk failed: " + out);
        }
        return out;
    }

    /**
     * Adds {@code count} jobs with {@code queue.add} from {@code threads} threads, each timing its own calls.
     *
     * @return adds per second, and the p50 and p99 of one add in milliseconds
     */
    static double[] javaAdds(JobQueue<String> queue, long count, int threads) throws InterruptedException {
        AtomicLong next = new AtomicLong();
        long[][] times = new long[threads][];
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> adders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            adders.add(Thread.ofPlatform().name("java-add-" + t).start(() -> {
                long[] mine = new long[(int) (count / threads + 2) * 2];
                int n = 0;
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                while (next.getAndIncrement() < count) {
                    long start = System.nanoTime();
                    queue.add("bench", PAYLOAD);
                    if (n == mine.length) {
                        mine = Arrays.copyOf(mine, n * 2);
                    }
                    mine[n++] = System.nanoTime() - start;
                }
                times[me] = Arrays.copyOf(mine, n);
            }));
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread adder : adders) {
            adder.join();
        }
        long elapsed = System.nanoTime() - start;
        long[] all = Arrays.stream(times).flatMapToLong(Arrays::stream).sorted().toArray();
        return new double[] {count / (elapsed / 1e9), percentile(all, 0.50) / 1e6, percentile(all, 0.99) / 1e6};
    }

    private static long percentile(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    }

    private static String find(Pattern pattern, String out) {
        Matcher m = pattern.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in wrk's output: " + out);
        }
        return m.group(1);
    }

    private static double millis(Pattern pattern, String out) {
        Matcher m = pattern.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("no " + pattern + " in wrk's output: " + out);
        }
        double value = Double.parseDouble(m.group(1));
        return switch (m.group(2)) {
            case "us" -> value / 1000;
            case "s" -> value * 1000;
            default -> value;
        };
    }

    private static long refused(String out) {
        Matcher m = NON_2XX.matcher(out);
        long refused = m.find() ? Long.parseLong(m.group(1)) : 0;
        Matcher errors = SOCKET_ERRORS.matcher(out);
        if (errors.find()) {
            System.out.println("wrk socket errors: " + errors.group(1));
        }
        return refused;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> what) {
        return median(runs.stream().mapToDouble(what).toArray());
    }

    /** Milliseconds as text: in µs below 0.1 ms. */
    private static String time(double ms) {
        return ms < 0.1 ? String.format(Locale.ROOT, "%.1f µs", ms * 1000) : String.format(Locale.ROOT, "%.2f ms", ms);
    }

    private static void printAdds(Map<String, List<Run>> results, int connections, int threads, int seconds) {
        System.out.println();
        System.out.printf(
                "Adds: wrk -t%d -c%d -d%ds over the API, then as many queue.add calls from %d threads; medians of %d"
                        + " runs%n%n",
                threads,
                connections,
                seconds,
                connections,
                results.values().iterator().next().size());
        System.out.println("| engine | API adds/s | API p50 | API p99 | Java adds/s | Java p50 | Java p99 | API ÷ Java"
                + " (adds/s) | mean time per add (C ÷ rate), API − Java | answers not 201 |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (Map.Entry<String, List<Run>> e : results.entrySet()) {
            List<Run> runs = e.getValue();
            double api = median(runs, Run::apiPerSecond);
            double java = median(runs, Run::javaPerSecond);
            // time per add at the throughput reached, C requests in flight: C / rate
            double overheadMs = median(
                    runs, r -> connections * 1000.0 / r.apiPerSecond() - connections * 1000.0 / r.javaPerSecond());
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %,.0f | %s | %s | %,.0f | %s | %s | %.3f | %s | %d |%n",
                    e.getKey(),
                    api,
                    time(median(runs, Run::apiP50Ms)),
                    time(median(runs, Run::apiP99Ms)),
                    java,
                    time(median(runs, Run::javaP50Ms)),
                    time(median(runs, Run::javaP99Ms)),
                    median(runs, r -> r.apiPerSecond() / r.javaPerSecond()),
                    time(overheadMs),
                    runs.stream().mapToLong(Run::refused).sum());
        }
    }
}
