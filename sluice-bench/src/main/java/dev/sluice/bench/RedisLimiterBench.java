package dev.sluice.bench;

import dev.sluice.bench.QueueResults.Json;
import dev.sluice.bench.RedisBenchResults.Series;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Sluice's Redis rate limiter against the two yardsticks the issue names, on one private local {@code
 * redis-server}: Bucket4j's Lettuce backend configured to the same rate, and a raw {@code EVALSHA} of a script
 * that returns 1 (one round trip with nothing to compute: the ceiling). And, for context, the floor: a raw
 * read-modify-write, {@code EVALSHA} of a script that does {@code TIME} + {@code GET} + {@code SET ... PX} and
 * computes nothing, the least any rate limiter that keeps its state in Redis and takes its time from Redis must
 * do ({@link RedisBenchRaw#floor}), sent exactly as the ceiling is.
 *
 * <p>Cases: each contender on one hot key and on 10,000 keys (each caller walks them round-robin), with 1 and
 * with 64 requests in flight: that many callers on virtual threads, each calling synchronously, all sharing the
 * contender's one Lettuce connection. The policy is a token bucket of 1,000,000 refilled 1,000,000 per second
 * for both limiters, so nearly every decision is a grant: the write path.
 *
 * <p>Each round measures every case for {@code --seconds}; within a key set and number in flight the
 * contenders' order rotates from round to round, so the shared machine's slow spells hit them alike. The first
 * {@code --warmup} rounds are thrown away. Per case: decisions per second; round trips per decision (commands
 * the contender's client sent, counted by a Lettuce {@code CommandListener}, over decisions) and which commands;
 * Redis CPU microseconds per decision ({@code INFO cpu} {@code used_cpu_sys + used_cpu_user} before and after);
 * the benchmark JVM's CPU per decision. Then the Redis memory each policy uses per limiter key ({@link
 * RedisBenchMemory}). Writes one JSON document; {@code bench/summarize-limiter-redis.py} prints the tables.
 *
 * <p>Usage: {@code RedisLimiterBench [--rounds 7] [--warmup 1] [--seconds 2] [--keys 10000] [--in-flight 1,64]
 * [--only sluice,bucket4j,raw-evalsha,floor] [--memory-keys 1000] [--no-memory]
 * [--out bench/results/limiter-redis.json]}. The system properties {@code sluice.bench.commit}, {@code
 * sluice.bench.dirty} and {@code sluice.bench.engineSources} are recorded as given.
 */
public final class RedisLimiterBench {
    /** The rate both limiters get: a bucket of this many tokens, refilled this many per second. */
    static final long CAPACITY = 1_000_000;

    static final Duration PERIOD = Duration.ofSeconds(1);

    /** The longest any call may wait for Redis; far above any latency of the run. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    static final String BUCKET4J_VERSION = libraryVersion("com.bucket4j", "bucket4j_jdk17-core");
    static final String LETTUCE_VERSION = libraryVersion("io.lettuce", "lettuce-core");

    /** Target: Sluice at least this fraction of the raw EVALSHA rate, in every case. */
    static final double CEILING_TARGET = 0.8;

    /** Target: Sluice at least this many times Bucket4j's rate on the hot key. */
    static final double BUCKET4J_TARGET = 2.0;

    static final String SLUICE = "sluice";
    static final String BUCKET4J = "bucket4j";
    static final String RAW = "raw-evalsha";

    /** Raw read-modify-write: {@code EVALSHA} of TIME + GET + SET PX, nothing computed. Context, not a target. */
    static final String FLOOR = "floor";

    static final List<String> CONTENDERS = List.of(SLUICE, BUCKET4J, RAW, FLOOR);
    static final String HOT = "hot";
    static final String MANY = "keys10k";

    private RedisLimiterBench() {}

    /** The policy Sluice's limiters get in the timed cases. */
    static RatePolicy policy() {
        return TokenBucket.of(CAPACITY, PERIOD);
    }

    public static void main(String[] args) throws Exception {
        int rounds = 7;
        int warmup = 1;
        double seconds = 2;
        int manyKeys = 10_000;
        int[] inFlight = {1, 64};
        List<String> only = CONTENDERS;
        int memoryKeys = 1_000;
        boolean memory = true;
        Path out = Path.of("bench/results/limiter-redis.json");
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--no-memory")) {
                memory = false;
                continue;
            }
            if (i + 1 == args.length) {
                throw new IllegalArgumentException(arg + " needs a value");
            }
            String value = args[++i];
            switch (arg) {
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--seconds" -> seconds = Double.parseDouble(value);
                case "--keys" -> manyKeys = Integer.parseInt(value);
                case "--in-flight" ->
                    inFlight = Arrays.stream(value.split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--only" -> only = contenders(value);
                case "--memory-keys" -> memoryKeys = Integer.parseInt(value);
                case "--out" -> out = Path.of(value);
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        Duration caseTime = Duration.ofNanos((long) (seconds * 1e9));
        Map<String, String[]> keySets = new LinkedHashMap<>();
        keySets.put(HOT, new String[] {"hot"});
        keySets.put(MANY, keyNames(manyKeys));

        Instant began = Instant.now();
        String loadBefore = QueueLocalBench.procLine("/proc/loadavg") + "; cpu pressure "
                + QueueLocalBench.procLine("/proc/pressure/cpu");
        RedisBenchResults results = new RedisBenchResults();
        List<RedisBenchMemory.Row> memoryRows = List.of();
        Map<String, String> descriptions = new LinkedHashMap<>();
        Map<String, String> redisInfo;

        try (RedisServer redis = RedisServer.start();
                RedisBenchAdmin admin = new RedisBenchAdmin(redis.uri())) {
            redisInfo = redisInfo(admin, redis);
            System.out.printf(
                    Locale.ROOT,
                    "RedisLimiterBench: Redis %s on port %d; %s; %d warm-up + %d measured rounds of %.1f s per case;"
                            + " keys: 1 and %,d; in flight: %s; contenders %s%n",
                    redisInfo.get("version"),
                    redis.port(),
                    Runtime.version(),
                    warmup,
                    rounds,
                    seconds,
                    manyKeys,
                    Arrays.toString(inFlight),
                    only);

            RedisBenchCommands sent = new RedisBenchCommands();
            try (RedisClient client = RedisClient.create(redis.uri())) {
                // before any connection is opened: listeners attach to connections as they are made
                client.addListener(sent);
                List<RedisBenchContender> contenders = new ArrayList<>();
                try {
                    for (String id : only) {
                        contenders.add(
                                switch (id) {
                                    case SLUICE -> new RedisBenchSluice(client, "bench", policy());
                                    case BUCKET4J -> new RedisBenchBucket4j(client, "b4j", CAPACITY, PERIOD);
                                    case RAW -> new RedisBenchRaw(client);
                                    case FLOOR -> RedisBenchRaw.floor(client);
                                    default -> throw new AssertionError(id);
                                });
                    }
                    for (RedisBenchContender contender : contenders) {
                        descriptions.put(contender.id(), contender.description());
                    }
                    runRounds(contenders, keySets, inFlight, warmup, rounds, caseTime, sent, admin, results);
                } finally {
                    for (RedisBenchContender contender : contenders) {
                        contender.close();
                    }
                }
                if (memory) {
                    memoryRows = new RedisBenchMemory(admin, memoryKeys)
                            .measure(client, only.contains(SLUICE), only.contains(BUCKET4J));
                }
            }
        }
        long wallSeconds = ChronoUnit.SECONDS.between(began, Instant.now());
        String loadAfter = QueueLocalBench.procLine("/proc/loadavg") + "; cpu pressure "
                + QueueLocalBench.procLine("/proc/pressure/cpu");
        System.out.printf(Locale.ROOT, "done in %d s%n", wallSeconds);

        String json = toJson(
                results,
                memoryRows,
                descriptions,
                redisInfo,
                new Run(
                        began,
                        wallSeconds,
                        loadBefore,
                        loadAfter,
                        warmup,
                        rounds,
                        seconds,
                        manyKeys,
                        inFlight,
                        memoryKeys));
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(out, json);
        System.out.println("wrote " + out);
        printSummary(results, memoryRows, keySets.keySet(), inFlight);
    }

    /**
     * Every round: each key set, each number in flight, each contender (in rotated order) for {@code caseTime};
     * rounds after the first {@code warmup} are recorded in {@code results}. Prints one line per round.
     */
    private static void runRounds(
            List<RedisBenchContender> contenders,
            Map<String, String[]> keySets,
            int[] inFlight,
            int warmup,
            int rounds,
            Duration caseTime,
            RedisBenchCommands sent,
            RedisBenchAdmin admin,
            RedisBenchResults results)
            throws InterruptedException {
        Map<String, RedisBenchContender.Decider> deciders = new LinkedHashMap<>();
        for (RedisBenchContender contender : contenders) {
            for (Map.Entry<String, String[]> set : keySets.entrySet()) {
                deciders.put(contender.id() + "." + set.getKey(), contender.decider(set.getKey(), set.getValue()));
            }
        }
        for (int round = 0; round < warmup + rounds; round++) {
            boolean measured = round >= warmup;
            StringBuilder line =
                    new StringBuilder(measured ? "round " + (round - warmup + 1) : "warm-up " + (round + 1));
            line.append(':');
            for (Map.Entry<String, String[]> set : keySets.entrySet()) {
                int keys = set.getValue().length;
                for (int n : inFlight) {
                    for (RedisBenchContender contender : QueueLocalBench.rotate(contenders, round)) {
                        QueueLocalBench.settle();
                        RedisBenchContender.Decider decider = deciders.get(contender.id() + "." + set.getKey());
                        Map<String, Long> sentBefore = sent.sent();
                        RedisBenchAdmin.CpuSeconds cpuBefore = admin.cpuSeconds();
                        RedisBenchLoad.Outcome outcome = RedisBenchLoad.run(decider, keys, n, caseTime);
                        RedisBenchAdmin.CpuSeconds cpuAfter = admin.cpuSeconds();
                        Map<String, Long> sentDuring = RedisBenchCommands.difference(sent.sent(), sentBefore);
                        if (measured) {
                            results.series(contender.id(), set.getKey(), keys, n)
                                    .add(outcome, sentDuring, cpuBefore, cpuAfter);
                        }
                        line.append(String.format(
                                Locale.ROOT,
                                " %s=%.0fk/s(%.2frt)",
                                RedisBenchResults.caseId(shortName(contender.id()), set.getKey(), n),
                                outcome.decisions() * 1e6 / outcome.timing().nanos(),
                                (double) RedisBenchCommands.total(sentDuring) / outcome.decisions()));
                        if (outcome.errors() > 0) {
                            line.append(String.format(
                                    Locale.ROOT, " [%d errors: %s]", outcome.errors(), outcome.firstError()));
                        }
                    }
                }
            }
            System.out.println(line);
        }
    }

    /** How the run was set up and when it ran, for the JSON. */
    record Run(
            Instant began,
            long wallSeconds,
            String loadBefore,
            String loadAfter,
            int warmup,
            int rounds,
            double seconds,
            int manyKeys,
            int[] inFlight,
            int memoryKeys) {}

    private static List<String> contenders(String value) {
        List<String> chosen = new ArrayList<>();
        for (String name : value.split(",")) {
            String id = name.trim().equals("raw") ? RAW : name.trim();
            if (!CONTENDERS.contains(id)) {
                throw new IllegalArgumentException("--only takes " + CONTENDERS + " (or raw), had " + name);
            }
            chosen.add(id);
        }
        return chosen;
    }

    private static String shortName(String contender) {
        return switch (contender) {
            case BUCKET4J -> "b4j";
            case RAW -> "raw";
            default -> contender; // sluice, floor
        };
    }

    static String[] keyNames(int count) {
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            names[i] = "k" + i;
        }
        return names;
    }

    private static Map<String, String> redisInfo(RedisBenchAdmin admin, RedisServer redis) {
        Map<String, String> server = admin.info("server");
        Map<String, String> info = new LinkedHashMap<>();
        info.put("version", server.get("redis_version"));
        info.put("binary", redis.binary().toString());
        info.put("mallocator", admin.info("memory").get("mem_allocator"));
        info.put("ioThreads", server.getOrDefault("io_threads_active", "n/a"));
        info.put("multiplexingApi", server.get("multiplexing_api"));
        info.put(
                "config",
                "private redis-server on 127.0.0.1, port chosen free; --save \"\" --appendonly no"
                        + " (dev.sluice.testkit.redis.RedisServer); otherwise defaults");
        return info;
    }

    /** The version in a library's {@code META-INF/maven/.../pom.properties}, or "unknown". */
    static String libraryVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = RedisLimiterBench.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    // ---- output ----

    private static void printSummary(
            RedisBenchResults results,
            List<RedisBenchMemory.Row> memoryRows,
            Iterable<String> keySets,
            int[] inFlight) {
        System.out.println();
        System.out.println("case                        median dec/s        min        max  rt/dec  Redis CPU us/dec"
                + "  JVM CPU us/dec  granted");
        for (Series s : results.series.values()) {
            if (s.isEmpty()) {
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "%-27s %12.0f %10.0f %10.0f %7.3f %17.2f %15.2f %8.4f%n",
                    s.id,
                    s.median(),
                    s.min(),
                    s.max(),
                    s.roundTripsPerDecision(),
                    s.medianRedisCpuMicrosPerDecision(),
                    s.medianClientCpuMicrosPerDecision(),
                    s.grantedFraction());
        }
        for (String set : keySets) {
            for (int n : inFlight) {
                String sluice = RedisBenchResults.caseId(SLUICE, set, n);
                StringBuilder line = new StringBuilder();
                for (String other : List.of(RAW, FLOOR, BUCKET4J)) {
                    String id = RedisBenchResults.caseId(other, set, n);
                    if (results.has(sluice) && results.has(id)) {
                        line.append(String.format(
                                Locale.ROOT,
                                " sluice / %s %.3f (per round %.3f);",
                                other,
                                results.ratio(sluice, id),
                                results.pairedRatio(sluice, id)));
                    }
                }
                if (!line.isEmpty()) {
                    System.out.println(RedisBenchResults.groupId(set, n) + ":" + line);
                }
            }
        }
        if (!memoryRows.isEmpty()) {
            System.out.println();
            System.out.println("memory                              held                 Redis keys  MEMORY USAGE B/key"
                    + "  used_memory B/key");
            for (RedisBenchMemory.Row row : memoryRows) {
                System.out.printf(
                        Locale.ROOT,
                        "%-35s %-20s %10s %19.1f %19.1f%n",
                        row.library() + " " + row.name(),
                        row.held(),
                        row.redisKeysByType(),
                        row.memoryUsagePerLimiterKey(),
                        row.usedMemoryDeltaPerLimiterKey());
            }
        }
    }

    static String toJson(
            RedisBenchResults results,
            List<RedisBenchMemory.Row> memoryRows,
            Map<String, String> descriptions,
            Map<String, String> redisInfo,
            Run run) {
        Json json = new Json().begin();
        json.header("dev.sluice.bench.RedisLimiterBench", run.began(), run.wallSeconds());

        json.object("environment");
        json.object("jdk")
                .field("version", Runtime.version().toString())
                .field("vendor", System.getProperty("java.vendor"))
                .field("vm", System.getProperty("java.vm.name"))
                .strings("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments())
                .field("maxHeapBytes", Runtime.getRuntime().maxMemory())
                .field("cpuTimeSource", QueueMeter.cpuSource())
                .end();
        json.object("machine")
                .field("cpu", cpuModel())
                .field("availableProcessors", Runtime.getRuntime().availableProcessors())
                .field("loadBefore", run.loadBefore())
                .field("loadAfter", run.loadAfter())
                .field(
                        "os",
                        System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                                + System.getProperty("os.arch"))
                .end();
        json.object("redis");
        redisInfo.forEach(json::field);
        json.end();
        json.object("libraries")
                .field("lettuce", LETTUCE_VERSION)
                .field("bucket4j", BUCKET4J_VERSION)
                .end();
        json.end();

        json.object("workload")
                .field("sluicePolicy", policy().toString())
                .field(
                        "bucket4jBandwidth",
                        "Bandwidth.builder().capacity(" + CAPACITY + ").refillGreedy(" + CAPACITY + ", "
                                + PERIOD.toSeconds() + " s)")
                .field("hotKeys", 1)
                .field("manyKeys", run.manyKeys())
                .field(
                        "keyOrder",
                        "caller c of n starts at key c * keys / n and walks the keys round-robin, one per call")
                .numbers("inFlight", Arrays.stream(run.inFlight()).boxed().toList(), 0)
                .field(
                        "callers",
                        "n virtual threads, each calling synchronously in a loop, sharing the contender's one"
                                + " Lettuce connection; nothing else runs meanwhile")
                .field("secondsPerCase", run.seconds(), 2)
                .field("warmupRounds", run.warmup())
                .field("measuredRounds", run.rounds())
                .field(
                        "order",
                        "every round runs each key set x in-flight group in turn; within a group the contenders'"
                                + " order rotates from round to round. Full GC before each case.")
                .field(
                        "roundTrips",
                        "commands the contender's Lettuce client sent (CommandListener.commandStarted) over decisions")
                .field(
                        "redisCpu",
                        "INFO cpu used_cpu_sys + used_cpu_user, read before and after the case, over decisions")
                .field(
                        "clientCpu",
                        "CPU time of the whole benchmark JVM while the case ran (" + QueueMeter.cpuSource()
                                + "), over decisions")
                .end();
        json.object("contenders");
        descriptions.forEach(json::field);
        json.end();

        json.object("cases");
        for (Series s : results.series.values()) {
            if (s.isEmpty()) {
                continue;
            }
            json.object(s.id)
                    .field("contender", s.contender)
                    .field("keySet", s.keySet)
                    .field("keys", s.keys)
                    .field("inFlight", s.inFlight)
                    .field("medianDecisionsPerSecond", s.median(), 0)
                    .field("minDecisionsPerSecond", s.min(), 0)
                    .field("maxDecisionsPerSecond", s.max(), 0)
                    .field("roundTripsPerDecision", s.roundTripsPerDecision(), 4);
            json.object("commandsPerDecision");
            s.commandsPerDecision().forEach((type, perDecision) -> json.field(type, perDecision, 4));
            json.end();
            json.field("medianRedisCpuMicrosPerDecision", s.medianRedisCpuMicrosPerDecision(), 3)
                    .field(
                            "medianRedisMainThreadCpuMicrosPerDecision",
                            s.medianRedisMainThreadCpuMicrosPerDecision(),
                            3)
                    .field("medianRedisCpusBusy", s.medianRedisCpusBusy(), 2)
                    .field("medianClientCpuMicrosPerDecision", s.medianClientCpuMicrosPerDecision(), 3)
                    .field("medianClientCpusBusy", s.medianClientCpusBusy(), 2)
                    .field("medianClientAllocatedBytesPerDecision", s.medianClientAllocatedBytesPerDecision(), 0)
                    .field("grantedFraction", s.grantedFraction(), 6)
                    .field("errors", s.totalErrors())
                    .field("firstError", s.firstError)
                    .numbers("decisionsPerSecond", s.decisionsPerSecond, 0)
                    .numbers("decisions", s.decisions, 0)
                    .numbers("granted", s.granted, 0)
                    .numbers("nanos", s.nanos, 0)
                    .numbers("commands", s.commands, 0)
                    .numbers("redisCpuMicros", s.redisCpuMicros, 0)
                    .numbers("redisMainThreadCpuMicros", s.redisMainThreadCpuMicros, 0)
                    .numbers("clientCpuNanos", s.clientCpuNanos, 0)
                    .numbers("clientAllocatedBytes", s.clientAllocatedBytes, 0)
                    .end();
        }
        json.end();

        json.object("ratios");
        for (String set : List.of(HOT, MANY)) {
            for (int n : run.inFlight()) {
                String sluice = RedisBenchResults.caseId(SLUICE, set, n);
                if (!results.has(sluice)) {
                    continue;
                }
                json.object(RedisBenchResults.groupId(set, n));
                for (String other : List.of(RAW, FLOOR, BUCKET4J)) {
                    String id = RedisBenchResults.caseId(other, set, n);
                    if (results.has(id)) {
                        String name = switch (other) {
                            case RAW -> "sluiceOverRaw";
                            case FLOOR -> "sluiceOverFloor";
                            default -> "sluiceOverBucket4j";
                        };
                        json.field(name, results.ratio(sluice, id), 3)
                                .field(name + "PairedMedian", results.pairedRatio(sluice, id), 3)
                                .numbers(name + "PerRound", results.pairedRatios(sluice, id), 3);
                    }
                }
                json.end();
            }
        }
        json.end();

        json.object("memory")
                .field("limiterKeysPerPolicy", run.memoryKeys())
                .field(
                        "method",
                        "FLUSHALL; used_memory; the keys' decisions (64 at a time); used_memory; SCAN MATCH"
                                + " <prefix>:<limiter>:*; sum of MEMORY USAGE key SAMPLES 0 over the keys found,"
                                + " grouped by limiter key (Sluice: up to the closing brace of the key's hash tag)");
        json.object("rows");
        for (RedisBenchMemory.Row row : memoryRows) {
            json.object(row.library() + "." + row.name())
                    .field("library", row.library())
                    .field("policy", row.policy())
                    .field("held", row.held())
                    .field("limiterKeys", row.limiterKeys())
                    .field("redisKeys", row.redisKeys());
            json.object("redisKeysByType");
            row.redisKeysByType().forEach((type, count) -> json.field(type, count));
            json.end();
            json.field("memoryUsageBytes", row.memoryUsageBytes())
                    .field("memoryUsageBytesPerLimiterKey", row.memoryUsagePerLimiterKey(), 1)
                    .field("usedMemoryDelta", row.usedMemoryDelta())
                    .field("usedMemoryDeltaPerLimiterKey", row.usedMemoryDeltaPerLimiterKey(), 1)
                    .field("sampleKey", row.sampleKey())
                    .field("samplePttlMillis", row.samplePttlMillis())
                    .end();
        }
        json.end();
        json.end();

        targets(json, results, run);
        return json.end().toString();
    }

    private static void targets(Json json, RedisBenchResults results, Run run) {
        json.object("targets");
        List<Series> sluiceCases = results.series.values().stream()
                .filter(s -> s.contender.equals(SLUICE) && !s.isEmpty())
                .toList();
        if (!sluiceCases.isEmpty()) {
            boolean allOne = true;
            json.object("oneRoundTripPerDecision")
                    .field("target", "Sluice: exactly one round trip (one EVALSHA) per decision");
            json.object("cases");
            for (Series s : sluiceCases) {
                boolean one = s.totalCommands() == s.totalDecisions()
                        && s.commandsByType.keySet().equals(Set.of("EVALSHA"));
                allOne &= one;
                json.field(
                        s.id,
                        String.format(
                                Locale.ROOT,
                                "%d commands %s for %d decisions",
                                s.totalCommands(),
                                s.commandsByType,
                                s.totalDecisions()));
            }
            json.end();
            json.field("met", allOne).end();
        }
        targetRatios(
                json,
                results,
                run,
                "ceiling",
                RAW,
                CEILING_TARGET,
                List.of(HOT, MANY),
                "Sluice >= 0.8 x raw EVALSHA of 'return 1', in every case");
        targetRatios(
                json,
                results,
                run,
                "bucket4jHotKey",
                BUCKET4J,
                BUCKET4J_TARGET,
                List.of(HOT),
                "Sluice >= 2 x Bucket4j's Lettuce backend on the hot key");
        json.end();
    }

    private static void targetRatios(
            Json json,
            RedisBenchResults results,
            Run run,
            String name,
            String other,
            double target,
            List<String> sets,
            String description) {
        boolean any = false;
        boolean met = true;
        List<String> lines = new ArrayList<>();
        for (String set : sets) {
            for (int n : run.inFlight()) {
                String sluice = RedisBenchResults.caseId(SLUICE, set, n);
                String id = RedisBenchResults.caseId(other, set, n);
                if (results.has(sluice) && results.has(id)) {
                    any = true;
                    double ofMedians = results.ratio(sluice, id);
                    double paired = results.pairedRatio(sluice, id);
                    boolean ok = ofMedians >= target && paired >= target;
                    met &= ok;
                    lines.add(String.format(
                            Locale.ROOT,
                            "%s: %.3f (per round %.3f) %s",
                            RedisBenchResults.groupId(set, n),
                            ofMedians,
                            paired,
                            ok ? "met" : "missed"));
                }
            }
        }
        if (any) {
            json.object(name)
                    .field("target", description)
                    .strings("cases", lines)
                    .field("met", met)
                    .end();
        }
    }

    private static String cpuModel() {
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
}
