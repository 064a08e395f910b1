package dev.sluice.bench;

import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.io.InputStream;
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
 * RedisBenchMemory}). Writes one JSON document and prints a summary ({@link RedisLimiterReport});
 * {@code bench/summarize-limiter-redis.py} prints the tables.
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

        String json = RedisLimiterReport.toJson(
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
        RedisLimiterReport.printSummary(results, memoryRows, keySets.keySet(), inFlight);
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
}
