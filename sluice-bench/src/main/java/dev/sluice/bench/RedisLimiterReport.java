package dev.sluice.bench;

import static dev.sluice.bench.RedisLimiterBench.BUCKET4J;
import static dev.sluice.bench.RedisLimiterBench.BUCKET4J_TARGET;
import static dev.sluice.bench.RedisLimiterBench.BUCKET4J_VERSION;
import static dev.sluice.bench.RedisLimiterBench.CAPACITY;
import static dev.sluice.bench.RedisLimiterBench.CEILING_TARGET;
import static dev.sluice.bench.RedisLimiterBench.FLOOR;
import static dev.sluice.bench.RedisLimiterBench.HOT;
import static dev.sluice.bench.RedisLimiterBench.LETTUCE_VERSION;
import static dev.sluice.bench.RedisLimiterBench.MANY;
import static dev.sluice.bench.RedisLimiterBench.PERIOD;
import static dev.sluice.bench.RedisLimiterBench.RAW;
import static dev.sluice.bench.RedisLimiterBench.SLUICE;
import static dev.sluice.bench.RedisLimiterBench.policy;

import dev.sluice.bench.QueueResults.Json;
import dev.sluice.bench.RedisBenchResults.Series;
import dev.sluice.bench.RedisLimiterBench.Run;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The output of {@link RedisLimiterBench}: the summary it prints when it is done, and the JSON document it writes
 * (the environment, the workload, every case's samples, the ratios between contenders, the memory rows and whether
 * the targets were met).
 */
final class RedisLimiterReport {
    private RedisLimiterReport() {}

    /** The table of cases, the ratios between contenders and the memory rows, as the run prints them last. */
    static void printSummary(
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

    /** The JSON document the run writes: environment, workload, cases, ratios, memory and targets. */
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
                .field("cpu", QueueLocalBench.cpuModel())
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
}
