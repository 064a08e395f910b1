package dev.sluice.bench;

import dev.sluice.bench.QueueResults.Json;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scenarios A to E of the BullMQ peer benchmark ({@code ../shared/bench/bullmq/}) for Sluice's Redis queue
 * ({@link QueueRedisScenarios}), and F, Sluice's own ({@link FeatureScenario}), against a Redis the caller names: {@code bench/run-queue-redis.sh} starts a
 * private one and runs this and the BullMQ harness against it in one sitting. Like the harness it runs each
 * scenario {@code --runs} times (after {@code --warmup} runs thrown away), one after another in this JVM, and
 * reports the median of every figure with the runs themselves.
 *
 * <p>Usage: {@code QueueRedisBench --redis redis://127.0.0.1:6390 [--scenarios A,B,C,D,E,F] [--runs 3]
 * [--warmup 0] [--n 20000] [--out queue-redis-sluice.json]}. Progress and each run's figures go to stderr. The
 * system properties {@code sluice.bench.commit}, {@code sluice.bench.dirty} and {@code
 * sluice.bench.engineSources} are recorded as given. Internal: {@code --child-worker QUEUE ...} is scenario E's
 * second worker process.
 */
public final class QueueRedisBench {
    private static final Map<String, String> TITLES = Map.of(
            "A", "enqueue throughput",
            "B", "process throughput (no-op)",
            "C", "end-to-end latency at steady rate",
            "D", "rate limiter, one worker",
            "E", "rate limiter, two worker processes",
            "F", "process with a listener, kept jobs and 10 rate-limited groups (Sluice only)");

    private static final List<String> OPTIONS = List.of(
            "--redis",
            "--scenarios",
            "--runs",
            "--warmup",
            "--n",
            "--out",
            "--child-worker",
            "--prefix",
            "--concurrency",
            "--limit-max",
            "--limit-duration");

    private QueueRedisBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        String uri = options.getOrDefault("--redis", "redis://127.0.0.1:6390");
        if (options.containsKey("--child-worker")) {
            QueueLimitScenarios.childWorker(
                    uri,
                    required(options, "--prefix"),
                    options.get("--child-worker"),
                    Integer.parseInt(required(options, "--concurrency")),
                    Integer.parseInt(required(options, "--limit-max")),
                    Integer.parseInt(required(options, "--limit-duration")),
                    System.in,
                    System.out);
            System.exit(0);
        }
        List<String> scenarios = Arrays.stream(
                        options.getOrDefault("--scenarios", "A,B,C,D,E,F").split(","))
                .map(s -> s.trim().toUpperCase(Locale.ROOT))
                .filter(s -> !s.isEmpty())
                .toList();
        for (String s : scenarios) {
            if (!TITLES.containsKey(s)) {
                throw new IllegalArgumentException("--scenarios takes A, B, C, D, E, F, had " + s);
            }
        }
        int runs = Integer.parseInt(options.getOrDefault("--runs", "3"));
        int warmup = Integer.parseInt(options.getOrDefault("--warmup", "0"));
        int n = Integer.parseInt(options.getOrDefault("--n", "20000"));
        Path out = Path.of(options.getOrDefault("--out", "queue-redis-sluice.json"));
        QueueRedisScenarios.Params params = QueueRedisScenarios.Params.standard(n);

        Instant began = Instant.now();
        String json;
        try (RedisBenchAdmin admin = new RedisBenchAdmin(uri)) {
            Map<String, String> redis = new LinkedHashMap<>();
            redis.put("version", admin.version());
            redis.put("mallocator", admin.info("memory").get("mem_allocator"));
            redis.put("uri", uri);
            log("env: Redis " + redis + ", " + Runtime.version());
            QueueRedisScenarios bench = new QueueRedisScenarios(uri, admin, params, childCommand());
            Map<String, Measured> measured = new LinkedHashMap<>();
            for (String scenario : scenarios) {
                measured.put(scenario, measure(bench, scenario, warmup, runs));
            }
            long wallSeconds = ChronoUnit.SECONDS.between(began, Instant.now());
            json = toJson(measured, params, redis, began, wallSeconds, warmup);
        }
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, json);
        log("wrote " + out);
        System.exit(0); // the engines' threads are gone, but a stray non-daemon thread must not hold the run
    }

    /** One scenario's runs: when it started, each run's figures, and the load average before each run. */
    record Measured(Instant started, List<Map<String, Double>> runs, List<Double> load) {}

    static Measured measure(QueueRedisScenarios bench, String scenario, int warmup, int runs) throws Exception {
        Instant started = Instant.now();
        for (int i = 0; i < warmup; i++) {
            log("scenario " + scenario + " warm-up " + (i + 1) + "/" + warmup + " (discarded) ...");
            bench.run(scenario);
        }
        List<Map<String, Double>> results = new ArrayList<>();
        List<Double> load = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            log("scenario " + scenario + " run " + (i + 1) + "/" + runs + " ...");
            load.add(loadAverage());
            long t = System.nanoTime();
            Map<String, Double> figures = bench.run(scenario);
            results.add(figures);
            log(String.format(
                    Locale.ROOT,
                    "scenario %s run %d done in %.1f s: %s",
                    scenario,
                    i + 1,
                    (System.nanoTime() - t) / 1e9,
                    brief(figures)));
        }
        return new Measured(started, results, load);
    }

    /** The median over the runs of every figure the first run had. */
    static Map<String, Double> medians(List<Map<String, Double>> runs) {
        Map<String, Double> medians = new LinkedHashMap<>();
        for (String key : runs.get(0).keySet()) {
            medians.put(
                    key,
                    QueueRedisFigures.median(runs.stream().map(r -> r.get(key)).toList()));
        }
        return medians;
    }

    private static String brief(Map<String, Double> figures) {
        StringBuilder sb = new StringBuilder("{");
        figures.forEach((k, v) -> {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(k).append('=').append(String.format(Locale.ROOT, "%.2f", v));
        });
        return sb.append('}').toString();
    }

    private static String toJson(
            Map<String, Measured> measured,
            QueueRedisScenarios.Params params,
            Map<String, String> redis,
            Instant began,
            long wallSeconds,
            int warmup) {
        Json json = new Json().begin();
        json.header("dev.sluice.bench.QueueRedisBench", began, wallSeconds);
        json.object("environment");
        json.object("jdk")
                .field("version", Runtime.version().toString())
                .field("vendor", System.getProperty("java.vendor"))
                .strings("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments())
                .end();
        json.field("lettuce", RedisLimiterBench.LETTUCE_VERSION);
        json.field("availableProcessors", Runtime.getRuntime().availableProcessors());
        json.object("redis");
        redis.forEach(json::field);
        json.end();
        json.end();

        json.object("scenarios");
        for (Map.Entry<String, Measured> entry : measured.entrySet()) {
            String scenario = entry.getKey();
            Measured m = entry.getValue();
            json.object(scenario)
                    .field("title", TITLES.get(scenario))
                    .field("started", m.started().truncatedTo(ChronoUnit.MILLIS).toString())
                    .field("runs", m.runs().size())
                    .field("warmupRuns", warmup);
            params(json, scenario, params);
            json.object("median");
            medians(m.runs()).forEach((k, v) -> json.field(k, v, 3));
            json.end();
            json.object("perRun");
            for (String key : m.runs().get(0).keySet()) {
                json.numbers(key, m.runs().stream().map(r -> r.get(key)).toList(), 3);
            }
            json.end();
            json.numbers("loadavg1AtRunStart", m.load(), 2);
            json.end();
        }
        json.end();
        return json.end().toString();
    }

    private static void params(Json json, String scenario, QueueRedisScenarios.Params p) {
        json.object("params");
        switch (scenario) {
            case "A" ->
                json.field("n", p.n())
                        .field("batch", p.batch())
                        .field("in_flight", p.inFlight())
                        .field("payload_bytes", QueueRedisScenarios.payload(0).length());
            case "B" ->
                json.field("n", p.n())
                        .numbers("concurrencies", p.concurrencies(), 0)
                        .field("mem_run_concurrency", p.memConcurrency())
                        .field("noop_calls", p.n())
                        .field("noop_call", "FCALL of a function returning 1, one key, one call in flight");
            case "C" -> json.field("jobs", p.cJobs()).field("rate", p.cRate()).field("concurrency", p.cConcurrency());
            case "F" ->
                json.field("n", p.n())
                        .field("concurrency", p.memConcurrency())
                        .field("groups", FeatureScenario.GROUPS)
                        .field("group_rate", FeatureScenario.GROUP_RATE.toString())
                        .field("kept_completed", "all")
                        .field("listener", "one QueueListener, counting completions");
            default ->
                json.field("jobs", p.limJobs())
                        .field("processes", scenario.equals("E") ? 2 : 1)
                        .field("concurrency_per_process", p.limConcurrency())
                        .field(
                                "queue_rate",
                                QueueLimitScenarios.rate(p.limitMax(), p.limitMillis())
                                        .toString())
                        .field("window_ms", p.limitMillis());
        }
        json.end();
    }

    /** How to start a JVM that runs this class on the same class path: scenario E's second worker. */
    static List<String> childCommand() {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"), QueueRedisBench.class.getName());
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --option value pairs, had " + Arrays.toString(args));
            }
            if (!OPTIONS.contains(args[i])) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; options: " + OPTIONS);
            }
            options.put(args[i], args[++i]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }

    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static void log(String message) {
        System.err.println("[" + Instant.now() + "] " + message);
    }
}
