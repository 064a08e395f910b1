package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real threads racing on one engine. The manual clock never moves in these tests (except the one on the
 * system clock), so nothing refills or expires: whatever the interleaving, exactly the limit is granted,
 * never more (over-admission) and never less (lost updates).
 */
public abstract class RateLimiterConcurrencyContract extends ContractSupport {
    private static final int THREADS = 8;
    private static final Duration HOUR = Duration.ofHours(1);

    private ExecutorService pool;

    /** For subclasses, one per engine. */
    protected RateLimiterConcurrencyContract() {}

    /** Starts the pool of racing threads of this test. */
    @BeforeEach
    protected final void startThreads() {
        pool = Executors.newFixedThreadPool(THREADS);
    }

    /**
     * Stops the racing threads and checks they stopped within 10 s.
     *
     * @throws InterruptedException if interrupted while waiting for them
     */
    @AfterEach
    protected final void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS))
                .as("threads stopped")
                .isTrue();
    }

    /** What each racing thread does, given its index. */
    @FunctionalInterface
    protected interface Racer {
        /**
         * One thread's part of the race.
         *
         * @param thread the thread's index, from 0
         * @throws Exception any failure, which fails the test
         */
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code racer} on {@link #THREADS} threads released at once by a start gate; rethrows failures.
     *
     * @param racer what each thread does
     * @throws Exception the failure of a thread, wrapped in an {@link java.util.concurrent.ExecutionException}, or a
     *     {@link java.util.concurrent.TimeoutException} if a thread did not finish within 60 s
     */
    protected final void race(Racer racer) throws Exception {
        CountDownLatch ready = new CountDownLatch(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                ready.countDown();
                start.await();
                racer.run(thread);
                return null;
            }));
        }
        assertThat(ready.await(10, TimeUnit.SECONDS))
                .as("all threads at the start gate")
                .isTrue();
        start.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
    }

    static Stream<LimitPolicy> policiesOfHundred() {
        return everyPolicy(100, HOUR);
    }

    @ParameterizedTest
    @MethodSource("policiesOfHundred")
    void threadsHammeringOneKeyAreGrantedExactlyTheLimit(LimitPolicy policy) throws Exception {
        NamedLimiter limiter = limiterOf(engine, "hammer", policy);
        for (int round = 0; round < 50; round++) {
            String key = "key-" + round;
            Queue<long[]> grants = new ConcurrentLinkedQueue<>(); // {remaining, permits}
            race(thread -> {
                for (int i = 0; i < 30; i++) {
                    long permits = 1 + (thread + i) % 3;
                    Decision decision = limiter.tryAcquire(key, permits);
                    if (decision.allowed()) {
                        grants.add(new long[] {decision.remaining(), permits});
                    }
                }
                while (true) {
                    Decision decision = limiter.tryAcquire(key, 1);
                    if (decision.denied()) {
                        break;
                    }
                    grants.add(new long[] {decision.remaining(), 1});
                }
            });

            assertThat(grants.stream().mapToLong(g -> g[1]).sum())
                    .as("round %d: permits granted", round)
                    .isEqualTo(100);
            // each grant left `remaining`: the grants, as [remaining, remaining + permits), tile [0, 100) exactly
            long next = 0;
            for (long[] grant :
                    grants.stream().sorted(Comparator.comparingLong(g -> g[0])).toList()) {
                assertThat(grant[0])
                        .as("round %d: a grant leaving %d remaining", round, grant[0])
                        .isEqualTo(next);
                next = grant[0] + grant[1];
            }
            assertThat(limiter.tryAcquire(key).denied()).isTrue();
        }
    }

    static Stream<LimitPolicy> policiesOfFive() {
        return everyPolicy(5, HOUR);
    }

    @ParameterizedTest
    @MethodSource("policiesOfFive")
    void threadsSpreadOverAThousandKeysAreGrantedExactlyEachKeysLimit(LimitPolicy policy) throws Exception {
        NamedLimiter limiter = limiterOf(engine, "many", policy);
        int keys = 1000;
        AtomicIntegerArray granted = new AtomicIntegerArray(keys);
        race(thread -> {
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < keys; i++) {
                    int key = (i + thread * (keys / THREADS)) % keys;
                    if (limiter.tryAcquire("key-" + key).allowed()) {
                        granted.incrementAndGet(key);
                    }
                }
            }
        });

        for (int key = 0; key < keys; key++) {
            assertThat(granted.get(key)).as("permits granted to key-%d", key).isEqualTo(5);
            assertThat(limiter.tryAcquire("key-" + key).denied()).isTrue();
        }
    }

    @Test
    void leasesAcquiredAndReleasedByRacingThreadsNeverExceedTheMaximumAndAllComeBack() throws Exception {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(3, HOUR));
        AtomicInteger held = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        AtomicLong grants = new AtomicLong();
        AtomicLong failedReleases = new AtomicLong();
        race(thread -> {
            for (int i = 0; i < 3000; i++) {
                int permits = 1 + (thread + i) % 2;
                Decision decision = limiter.tryAcquire("k", permits);
                if (decision.allowed()) {
                    grants.incrementAndGet();
                    mostHeld.accumulateAndGet(held.addAndGet(permits), Math::max);
                    Thread.yield();
                    held.addAndGet(-permits);
                    if (!decision.release()) {
                        failedReleases.incrementAndGet();
                    }
                }
            }
        });

        assertThat(mostHeld.get()).as("most permits held at once").isBetween(1, 3);
        assertThat(failedReleases.get()).isZero();
        assertThat(grants.get()).isPositive();
        assertThat(held.get()).isZero();
        assertDecision(limiter.tryAcquire("k", 3), allowed("conc", 3, 0, T0 + HOUR.toNanos()));
    }

    static Stream<Arguments> chainLayers() {
        Duration second = Duration.ofSeconds(1);
        return Stream.of(
                Arguments.of(TokenBucket.of(20, second), TokenBucket.of(100, second), true),
                Arguments.of(TokenBucket.of(20, second), TokenBucket.of(100, second), false),
                Arguments.of(FixedWindow.of(20, second), SlidingWindowLog.of(100, second), true),
                Arguments.of(SlidingWindowCounter.of(20, second), Gcra.of(100, second, 100), false),
                Arguments.of(SlidingWindowLog.of(20, second), FixedWindow.of(100, second), false),
                Arguments.of(Gcra.of(20, second, 20), SlidingWindowCounter.of(100, second), true));
    }

    @ParameterizedTest(name = "tenant {0}, global {1}, tenant layer first: {2}")
    @MethodSource("chainLayers")
    void chainUnderContentionGrantsExactlyTheGlobalLimitAndLeaksNothing(
            LimitPolicy tenantPolicy, LimitPolicy globalPolicy, boolean tenantFirst) throws Exception {
        int tenants = 10;
        for (int round = 0; round < 10; round++) {
            NamedLimiter tenant = limiterOf(engine, "tenant-" + round, tenantPolicy);
            NamedLimiter global = limiterOf(engine, "global-" + round, globalPolicy);
            LimitChain<String> chain = tenantFirst
                    ? engine.<String>chain()
                            .layer(tenant, t -> t)
                            .layer(global, "all")
                            .build()
                    : engine.<String>chain()
                            .layer(global, "all")
                            .layer(tenant, t -> t)
                            .build();
            AtomicIntegerArray granted = new AtomicIntegerArray(tenants);
            race(thread -> {
                for (int i = 0; i < 300; i++) {
                    int t = (thread * 7 + i) % tenants;
                    if (chain.tryAcquire("tenant-" + t).allowed()) {
                        granted.incrementAndGet(t);
                    }
                }
            });
            // a request can be denied because of another one that is later undone; take what is left, one
            // thread: the chain must still have exactly the global limit in all
            for (int t = 0; t < tenants; t++) {
                while (chain.tryAcquire("tenant-" + t).allowed()) {
                    granted.incrementAndGet(t);
                }
            }

            int total = 0;
            for (int t = 0; t < tenants; t++) {
                int mine = granted.get(t);
                total += mine;
                assertThat(mine).as("round %d: grants of tenant-%d", round, t).isBetween(0, 20);
                // what the tenant layer has left is exactly what the chain did not grant: denials leaked nothing
                if (mine < 20) {
                    assertThat(tenant.tryAcquire("tenant-" + t, 20 - mine).remaining())
                            .isZero();
                }
                assertThat(tenant.tryAcquire("tenant-" + t).denied())
                        .as("round %d: tenant-%d is used up", round, t)
                        .isTrue();
            }
            assertThat(total).as("round %d: grants through the chain", round).isEqualTo(100);
            assertThat(global.tryAcquire("all").denied()).isTrue();
        }
    }

    @Test
    void chainOfConcurrencyLimitsUnderContentionNeverExceedsEitherAndReleasesEverything() throws Exception {
        ConcurrencyLimiter perTenant = engine.concurrencyLimiter("tenant", ConcurrencyLimit.of(2, HOUR));
        ConcurrencyLimiter everyone = engine.concurrencyLimiter("global", ConcurrencyLimit.of(5, HOUR));
        LimitChain<Integer> chain = engine.<Integer>chain()
                .layer(perTenant, t -> "tenant-" + t)
                .layer(everyone, "all")
                .build();
        int tenants = 4;
        AtomicIntegerArray heldByTenant = new AtomicIntegerArray(tenants);
        AtomicInteger heldByAll = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicLong grants = new AtomicLong();
        race(thread -> {
            for (int i = 0; i < 2000; i++) {
                int t = (thread + i) % tenants;
                Decision decision = chain.tryAcquire(t);
                if (decision.allowed()) {
                    grants.incrementAndGet();
                    if (heldByTenant.incrementAndGet(t) > 2 | heldByAll.incrementAndGet() > 5) {
                        violations.incrementAndGet();
                    }
                    Thread.yield();
                    heldByTenant.decrementAndGet(t);
                    heldByAll.decrementAndGet();
                    if (!decision.release()) {
                        violations.incrementAndGet();
                    }
                }
            }
        });

        assertThat(violations.get()).isZero();
        assertThat(grants.get()).isPositive();
        assertThat(everyone.tryAcquire("all", 5).allowed())
                .as("every global permit came back")
                .isTrue();
        for (int t = 0; t < tenants; t++) {
            assertThat(perTenant.tryAcquire("tenant-" + t, 2).allowed())
                    .as("tenant-%d's permits came back", t)
                    .isTrue();
        }
    }

    /** The one test on real time: blocking acquires poll the limiter while other threads release leases. */
    @Test
    void blockingAcquireOnTheSystemClockNeverHoldsMoreThanTheMaximum() throws Exception {
        Sluice realTime = engineOn(SluiceClock.system());
        ConcurrencyLimiter limiter =
                realTime.concurrencyLimiter("conc", ConcurrencyLimit.of(2, Duration.ofSeconds(10)));
        AtomicInteger held = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        AtomicInteger deniedOrUnreleased = new AtomicInteger();
        race(thread -> {
            if (thread >= 4) {
                return; // four waiters are enough to contend for two permits
            }
            for (int i = 0; i < 25; i++) {
                Decision decision = limiter.acquire("k", 1, Duration.ofSeconds(30));
                if (decision.denied()) {
                    deniedOrUnreleased.incrementAndGet();
                    continue;
                }
                mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                for (int spin = 0; spin < 100; spin++) {
                    Thread.yield();
                }
                held.decrementAndGet();
                if (!decision.release()) {
                    deniedOrUnreleased.incrementAndGet();
                }
            }
        });

        assertThat(deniedOrUnreleased.get()).isZero();
        assertThat(mostHeld.get()).isBetween(1, 2);
        assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
    }
}
