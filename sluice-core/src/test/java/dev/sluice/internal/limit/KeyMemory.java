package dev.sluice.internal.limit;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Measures the heap a limiter retains per key: the key's state and its map entry (and its share of the
 * map's table), not the key string, which the caller holds anyway.
 *
 * <p>Method: allocate the key strings first, collect, read the used heap (the control); then put every key in
 * a {@link KeyTable}, collect, read again. The difference divided by the number of keys is the cost per
 * key. Each reading is the lowest of several full collections, and each measurement the lowest of a few
 * attempts, since noise (JIT, class loading, late TLABs) only ever adds bytes.
 */
final class KeyMemory {
    static final int KEYS = 200_000;

    private KeyMemory() {}

    /** The policies whose per-key state is constant in size, by name. */
    static Map<String, LimitPolicy> policies() {
        Map<String, LimitPolicy> policies = new LinkedHashMap<>();
        policies.put("TokenBucket", TokenBucket.of(10, Duration.ofSeconds(1)));
        policies.put("Gcra", Gcra.of(10, Duration.ofSeconds(1), 5));
        policies.put("FixedWindow", FixedWindow.of(10, Duration.ofSeconds(1)));
        policies.put("SlidingWindowCounter", SlidingWindowCounter.of(10, Duration.ofSeconds(1)));
        policies.put("SlidingWindowLog", SlidingWindowLog.of(10, Duration.ofSeconds(1)));
        policies.put("ConcurrencyLimit", ConcurrencyLimit.of(10, Duration.ofSeconds(1)));
        return policies;
    }

    static String[] keys(int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "client-" + i;
        }
        return keys;
    }

    /**
     * Bytes retained per key by a table holding {@code keys}.
     *
     * @param busy whether each key takes one permit (a busy key) or is only looked up (an idle key)
     */
    static double bytesPerKey(LimitPolicy policy, String[] keys, boolean busy, int attempts, int collections) {
        double best = Double.MAX_VALUE;
        for (int attempt = 0; attempt < attempts; attempt++) {
            best = Math.min(best, measureOnce(policy, keys, busy, collections));
        }
        return best;
    }

    private static double measureOnce(LimitPolicy policy, String[] keys, boolean busy, int collections) {
        ManualClock clock = new ManualClock();
        Algorithm algorithm = Algorithm.of("memory", policy, clock);
        long now = clock.nanos();
        long before = usedHeapAfterGc(collections);
        KeyTable table = new KeyTable("memory", keys.length + 1, LimiterListener.none(), now);
        for (String key : keys) {
            KeyState state = table.state(key, algorithm, now);
            if (busy) {
                algorithm.acquire(state, now, 1, true);
            }
        }
        long after = usedHeapAfterGc(collections);
        if (table.size() != keys.length) {
            throw new AssertionError("table holds " + table.size() + " keys, expected " + keys.length);
        }
        java.lang.ref.Reference.reachabilityFence(table);
        return (double) (after - before) / keys.length;
    }

    /** The lowest used-heap reading over {@code collections} full collections. */
    static long usedHeapAfterGc(int collections) {
        Runtime runtime = Runtime.getRuntime();
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < collections; i++) {
            System.gc();
            lowest = Math.min(lowest, runtime.totalMemory() - runtime.freeMemory());
        }
        return lowest;
    }
}
