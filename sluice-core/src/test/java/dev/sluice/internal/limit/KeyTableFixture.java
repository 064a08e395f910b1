package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.InMemoryEngine;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * What the key table tests share: a manual clock, a listener that records what the table reports, limiters of
 * any policy over a bounded (or unbounded) table, decisions reduced to what two limiters can compare, and a way
 * to run real threads together, alone or next to a sweeper. The tests extend it: {@link KeyTableCapacityTest},
 * {@link KeyTableOverflowTest}, {@link KeyTableSweepTest} and {@link KeyTableRetiredStateTest}; {@link
 * KeyTableEvictionProperties} opens its limiters with {@link #open}.
 */
abstract class KeyTableFixture {
    final ManualClock clock = new ManualClock();
    final Recorder listener = new Recorder();

    /** Counts (and, unless told not to, records) what the table tells its listener. */
    static final class Recorder implements LimiterListener {
        final LongAdder full = new LongAdder();
        final LongAdder evicted = new LongAdder();
        final Set<String> fullKeys = ConcurrentHashMap.newKeySet();
        final Set<String> evictedKeys = ConcurrentHashMap.newKeySet();
        volatile boolean recordKeys = true;

        @Override
        public void onKeyTableFull(String limiter, String key) {
            full.increment();
            if (recordKeys) {
                fullKeys.add(key);
            }
        }

        @Override
        public void onEvicted(String limiter, String key) {
            evicted.increment();
            if (recordKeys) {
                evictedKeys.add(key);
            }
        }
    }

    InMemoryLimiter<?> limiter(LimitPolicy policy, int maxKeys) {
        return limiter(policy, maxKeys, listener);
    }

    InMemoryLimiter<?> limiter(LimitPolicy policy, int maxKeys, LimiterListener listener) {
        return open(
                new InMemoryEngine(clock),
                policy,
                LimiterOptions.builder().maxKeys(maxKeys).listener(listener).build());
    }

    /** A limiter called "api" of the kind {@code policy} is for. */
    static InMemoryLimiter<?> open(InMemoryEngine engine, LimitPolicy policy, LimiterOptions options) {
        return (InMemoryLimiter<?>) (Object)
                switch (policy) {
                    case RatePolicy rate -> engine.limiter("api", rate, options);
                    case ConcurrencyLimit concurrency -> engine.concurrencyLimiter("api", concurrency, options);
                };
    }

    InMemoryRateLimiter rateLimiter(RatePolicy policy, int maxKeys) {
        return (InMemoryRateLimiter) limiter(policy, maxKeys);
    }

    /** A limiter on the same clock that never runs out of room: what a key gets if it is never dropped. */
    InMemoryLimiter<?> unbounded(LimitPolicy policy) {
        return limiter(policy, 1 << 30, LimiterListener.none());
    }

    KeyState stateOf(InMemoryLimiter<?> limiter, String key) {
        assertThat(limiter.table.tracks(key)).as("%s is tracked", key).isTrue();
        return limiter.table.state(key, limiter.algorithm(), clock.nanos());
    }

    static int granted(InMemoryLimiter<?> limiter, String key, int attempts) {
        int granted = 0;
        for (int i = 0; i < attempts; i++) {
            granted += limiter.tryAcquire(key).allowed() ? 1 : 0;
        }
        return granted;
    }

    /** A decision with its lease reduced to what matters, so decisions of two limiters compare equal. */
    static List<Object> comparable(Decision decision) {
        Lease lease = decision.lease();
        return List.of(
                decision.allowed(),
                decision.remaining(),
                decision.limit(),
                decision.retryAfterNanos(),
                decision.resetAtNanos(),
                decision.limiter(),
                lease == Lease.none() ? "no lease" : "lease until " + lease.expiresAtNanos());
    }

    /** Asks both limiters the same, {@code times} times, and expects the same decisions. */
    static void sameDecisions(InMemoryLimiter<?> limiter, InMemoryLimiter<?> reference, String key, int times) {
        for (int i = 0; i < times; i++) {
            assertThat(comparable(limiter.tryAcquire(key)))
                    .as("%s, attempt %d", key, i + 1)
                    .isEqualTo(comparable(reference.tryAcquire(key)));
        }
    }

    /** Every policy, each with a limit of 5 that comes back only over an hour or more. */
    static Stream<LimitPolicy> policiesOfFive() {
        Duration hour = Duration.ofHours(1);
        return Stream.of(
                TokenBucket.of(5, hour),
                Gcra.of(1, hour, 5),
                FixedWindow.of(5, hour),
                SlidingWindowCounter.of(5, hour),
                SlidingWindowLog.of(5, hour),
                ConcurrencyLimit.of(5, hour));
    }

    interface ThreadBody {
        void run(int thread) throws Exception;
    }

    /** Runs {@code body} on {@code threads} real threads released together; rethrows the first failure. */
    static void runConcurrently(int threads, ThreadBody body) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            workers.add(new Thread(
                    () -> {
                        try {
                            start.await();
                            body.run(thread);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "key-table-test-" + t));
        }
        workers.forEach(Thread::start);
        start.countDown();
        for (Thread worker : workers) {
            worker.join(60_000);
            assertThat(worker.isAlive()).as("%s finished", worker.getName()).isFalse();
        }
        if (failure.get() != null) {
            throw new AssertionError("a worker failed", failure.get());
        }
    }

    /**
     * Runs {@code body} on {@code acquirers} real threads (numbered from 0) next to one more thread that sweeps
     * {@code limiter}'s table at {@code now} in a loop until they have all finished; rethrows the first failure.
     */
    static void runWhileSweeping(InMemoryLimiter<?> limiter, long now, int acquirers, ThreadBody body)
            throws Exception {
        AtomicInteger running = new AtomicInteger(acquirers);
        AtomicBoolean done = new AtomicBoolean();
        runConcurrently(acquirers + 1, t -> {
            if (t == acquirers) {
                while (!done.get()) {
                    limiter.table.sweep(limiter.algorithm(), now);
                }
                return;
            }
            try {
                body.run(t);
            } finally {
                if (running.decrementAndGet() == 0) {
                    done.set(true);
                }
            }
        });
    }
}
