package dev.sluice.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Sluice's in-memory token bucket side by side with Bucket4j (local, lock-free), Resilience4j's RateLimiter and
 * Guava's RateLimiter, each configured to the same {@link Regime}. Score: decisions per microsecond (= millions
 * per second), summed over the threads.
 *
 * <ul>
 *   <li>{@code oneKey_*}: every call asks for one permit of the same key (peers: one bare limiter).
 *   <li>{@code keys100k_*}: 100,000 distinct, pre-populated keys; each thread walks a fixed pseudo-random order
 *       of them from its own starting point (peers: one limiter per key in a ConcurrentHashMap).
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LocalLimiterBench {

    /** The one-key setup, shared by all threads of a trial. */
    @State(Scope.Benchmark)
    public static class OneKey {
        @Param({Contender.SLUICE, Contender.SLUICE_LOOKUP, Contender.BUCKET4J, Contender.RESILIENCE4J, Contender.GUAVA})
        public String library;

        @Param({"open", "throttled"})
        public String regime;

        Contender contender;
        String key;

        @Setup(Level.Trial)
        public void setUp() {
            contender = Contender.oneKey(library, Regime.valueOf(regime));
            key = Keys.ONE_KEY;
            contender.populate(new String[] {key});
        }
    }

    /** The many-key setup, shared by all threads of a trial. */
    @State(Scope.Benchmark)
    public static class ManyKeys {
        @Param({Contender.SLUICE, Contender.BUCKET4J, Contender.RESILIENCE4J, Contender.GUAVA})
        public String library;

        @Param({"open", "throttled"})
        public String regime;

        Contender contender;
        String[] order;

        @Setup(Level.Trial)
        public void setUp() {
            contender = Contender.keyed(library, Regime.valueOf(regime));
            String[] keys = Keys.distinct(Keys.COUNT);
            contender.populate(keys);
            order = Keys.shuffled(keys);
        }
    }

    /** Where one thread is in its walk over the keys. */
    @State(Scope.Thread)
    public static class Cursor {
        int index;

        @Setup(Level.Trial)
        public void setUp(ThreadParams thread) {
            index = thread.getThreadIndex() * (Keys.COUNT / thread.getThreadCount());
        }

        String next(String[] order) {
            int i = index;
            index = i + 1 == order.length ? 0 : i + 1;
            return order[i];
        }
    }

    @Benchmark
    @Threads(1)
    public boolean oneKey_1thread(OneKey state) {
        return state.contender.tryAcquire(state.key);
    }

    @Benchmark
    @Threads(2)
    public boolean oneKey_2threads(OneKey state) {
        return state.contender.tryAcquire(state.key);
    }

    @Benchmark
    @Threads(1)
    public boolean keys100k_1thread(ManyKeys state, Cursor cursor) {
        return state.contender.tryAcquire(cursor.next(state.order));
    }

    @Benchmark
    @Threads(2)
    public boolean keys100k_2threads(ManyKeys state, Cursor cursor) {
        return state.contender.tryAcquire(cursor.next(state.order));
    }
}
