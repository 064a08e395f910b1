package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis memory per limiter key, for each of Sluice's policies and for Bucket4j's token bucket: on an emptied
 * server, {@code keys} limiter keys each get their decisions (one, or the entries a log or a concurrency limit
 * holds), then every Redis key the library wrote is found by {@code SCAN} and measured by {@code MEMORY USAGE key
 * SAMPLES 0}; {@code INFO memory used_memory} is read before and after as a second measure.
 *
 * <p>The policies run slowly (100 per hour) so that no state expires while it is measured: Sluice drops a key's
 * state once it is back at its full limit, Bucket4j soon after.
 */
final class RedisBenchMemory {
    static final String SLUICE_PREFIX = "bench-mem";
    static final String BUCKET4J_PREFIX = "b4j-mem";
    static final int LOG_GRANTS_HELD = 100;
    static final int LEASES_HELD = 10;
    private static final int PARALLEL_KEYS = 64;

    /** One policy's figures. {@code redisKeysByType}: how many Redis keys of each type its limiter keys use. */
    record Row(
            String library,
            String name,
            String policy,
            String held,
            int limiterKeys,
            int redisKeys,
            Map<String, Integer> redisKeysByType,
            long memoryUsageBytes,
            long usedMemoryDelta,
            long samplePttlMillis,
            String sampleKey) {
        double memoryUsagePerLimiterKey() {
            return (double) memoryUsageBytes / limiterKeys;
        }

        double usedMemoryDeltaPerLimiterKey() {
            return (double) usedMemoryDelta / limiterKeys;
        }
    }

    /** What to do on one limiter key (the {@code index}-th, called {@code key}) before measuring. */
    @FunctionalInterface
    private interface Fill {
        void fill(int index, String key) throws Exception;
    }

    private final RedisBenchAdmin admin;
    private final int keys;

    RedisBenchMemory(RedisBenchAdmin admin, int keys) {
        this.admin = admin;
        this.keys = keys;
    }

    /** Every row: Sluice's six policies, then Bucket4j (either side may be left out). */
    List<Row> measure(RedisClient client, boolean sluice, boolean bucket4j) throws Exception {
        List<Row> rows = new ArrayList<>();
        if (sluice) {
            // the engine only: each row makes a limiter of its own policy on it
            try (RedisBenchSluice engine = new RedisBenchSluice(client, SLUICE_PREFIX, RedisLimiterBench.policy())) {
                Sluice s = engine.sluice();
                Duration hour = Duration.ofHours(1);
                rows.add(sluiceRow(s, "token-bucket", TokenBucket.of(100, hour), "1 grant", 1));
                rows.add(sluiceRow(s, "gcra", Gcra.of(100, hour, 100), "1 grant", 1));
                rows.add(sluiceRow(s, "fixed-window", FixedWindow.of(100, hour), "1 grant", 1));
                rows.add(sluiceRow(s, "sliding-window-counter", SlidingWindowCounter.of(100, hour), "1 grant", 1));
                rows.add(sluiceRow(
                        s,
                        "sliding-window-log",
                        SlidingWindowLog.of(1_000, hour),
                        LOG_GRANTS_HELD + " grants in the log",
                        LOG_GRANTS_HELD));
                rows.add(sluiceRow(
                        s,
                        "concurrency",
                        ConcurrencyLimit.of(100, Duration.ofMinutes(10)),
                        LEASES_HELD + " leases held",
                        LEASES_HELD));
            }
        }
        if (bucket4j) {
            try (RedisBenchBucket4j b4j = new RedisBenchBucket4j(client, BUCKET4J_PREFIX, 100, Duration.ofHours(1))) {
                RedisBenchContender.Decider decider = b4j.decider("token-bucket", keyNames());
                rows.add(row(
                        "bucket4j",
                        "token-bucket",
                        "capacity 100, refillGreedy(100, 1 h), expiration basedOnTimeForRefillingBucketUpToMax("
                                + RedisBenchBucket4j.KEEP_AFTER_REFILL.toSeconds() + " s)",
                        "1 grant",
                        BUCKET4J_PREFIX + ":token-bucket:*",
                        (index, key) -> check(decider.decide(index), key)));
            }
        }
        admin.flushAll();
        return rows;
    }

    private Row sluiceRow(Sluice sluice, String name, LimitPolicy policy, String held, int calls) throws Exception {
        Fill fill = switch (policy) {
            case RatePolicy rate -> {
                RateLimiter limiter = sluice.limiter(name, rate);
                yield (index, key) -> {
                    for (int i = 0; i < calls; i++) {
                        check(limiter.tryConsume(key), key);
                    }
                };
            }
            case ConcurrencyLimit concurrency -> {
                ConcurrencyLimiter limiter = sluice.concurrencyLimiter(name, concurrency);
                yield (index, key) -> {
                    for (int i = 0; i < calls; i++) {
                        check(limiter.tryAcquire(key).allowed(), key);
                    }
                };
            }
        };
        return row("sluice", name, policy.toString(), held, SLUICE_PREFIX + ":" + name + ":*", fill);
    }

    private Row row(String library, String name, String policy, String held, String pattern, Fill fill)
            throws Exception {
        admin.flushAll();
        long before = admin.usedMemory();
        String[] names = keyNames();
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            AtomicLong next = new AtomicLong();
            for (int c = 0; c < PARALLEL_KEYS; c++) {
                done.add(callers.submit(() -> {
                    for (long i = next.getAndIncrement(); i < names.length; i = next.getAndIncrement()) {
                        fill.fill((int) i, names[(int) i]);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("filling " + library + " " + name + " failed", e.getCause());
                }
            }
        }
        long after = admin.usedMemory();
        List<String> redisKeys = admin.scan(pattern);
        long bytes = 0;
        Set<String> limiterKeys = new HashSet<>();
        Map<String, Integer> byType = new TreeMap<>();
        for (String key : redisKeys) {
            bytes += admin.memoryUsage(key);
            limiterKeys.add(limiterKeyOf(key));
            byType.merge(admin.type(key), 1, Integer::sum);
        }
        String sample = redisKeys.isEmpty() ? "" : redisKeys.get(0);
        long pttl = sample.isEmpty() ? -2 : admin.pttl(sample);
        if (limiterKeys.size() != keys) {
            throw new IllegalStateException(library + " " + name + ": found " + limiterKeys.size()
                    + " limiter keys in Redis, expected " + keys + " (did state expire?)");
        }
        return new Row(
                library,
                name,
                policy,
                held,
                limiterKeys.size(),
                redisKeys.size(),
                byType,
                bytes,
                after - before,
                pttl,
                sample);
    }

    /**
     * The limiter key a Redis key belongs to: up to its hash tag's closing brace (Sluice writes {@code
     * prefix:limiter:{key}} and may add {@code :suffix} keys beside it), or the whole key where there is no tag.
     */
    static String limiterKeyOf(String redisKey) {
        int close = redisKey.lastIndexOf('}');
        return close < 0 ? redisKey : redisKey.substring(0, close + 1);
    }

    private String[] keyNames() {
        String[] names = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = "user-" + i;
        }
        return names;
    }

    private static void check(boolean granted, String key) {
        if (!granted) {
            throw new IllegalStateException("a request on " + key + " was denied while filling: the figures"
                    + " would not be of the state described");
        }
    }
}
