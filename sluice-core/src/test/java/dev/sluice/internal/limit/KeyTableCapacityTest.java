package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The bounded key table holds at most maxKeys states: a million distinct keys, on a frozen or a moving clock,
 * alone or from several threads, never grow it past that, and racing inserts of the same keys keep its count
 * of slots exact.
 */
class KeyTableCapacityTest extends KeyTableFixture {
    @Test
    void aMillionDistinctBusyKeysNeverGrowTheTableBeyondMaxKeys() {
        listener.recordKeys = false;
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofHours(1)), 1_000);
        int keys = 1_000_000;
        long grants = 0;
        int maxSize = 0;
        for (int i = 0; i < keys; i++) {
            grants += limiter.tryAcquire("k" + i).allowed() ? 1 : 0;
            maxSize = Math.max(maxSize, limiter.table.size());
        }
        assertThat(maxSize).isEqualTo(1_000);
        // The first 1,000 keys have their own state; the 999,000 others share one key's 5 permits.
        assertThat(grants).isEqualTo(1_000 + 5);
        assertThat(listener.full.sum()).isEqualTo(999_000);
        assertThat(listener.evicted.sum()).isZero();
        int tracked = 0;
        for (int i = 0; i < keys; i++) {
            if (limiter.table.tracks("k" + i)) {
                tracked++;
                assertThat(i).isLessThan(1_000);
            }
        }
        assertThat(tracked).isEqualTo(1_000);
    }

    @Test
    void aMillionDistinctKeysOnAMovingClockStayBoundedAndEveryKeyIsAccountedFor() {
        listener.recordKeys = false;
        // 5 per second: a key that took 1 permit is idle again 200 ms later.
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofSeconds(1)), 1_000);
        int keys = 1_000_000;
        int maxSize = 0;
        for (int i = 0; i < keys; i++) {
            if (i % 1_000 == 0) {
                clock.advance(Duration.ofMillis(30));
            }
            limiter.tryAcquire("k" + i);
            maxSize = Math.max(maxSize, limiter.table.size());
        }
        assertThat(maxSize).isEqualTo(1_000);
        assertThat(listener.full.sum()).as("keys sent to the overflow").isPositive();
        assertThat(listener.evicted.sum()).as("idle keys dropped").isPositive();
        // Each key asked once: it went to the overflow, or got a slot it still holds or lost to a sweep.
        int tracked = 0;
        for (int i = 0; i < keys; i++) {
            tracked += limiter.table.tracks("k" + i) ? 1 : 0;
        }
        assertThat(tracked).isEqualTo(limiter.table.size()).isLessThanOrEqualTo(1_000);
        assertThat(listener.full.sum() + listener.evicted.sum() + tracked).isEqualTo(keys);
    }

    @RepeatedTest(3)
    void concurrentDistinctKeysNeverGrowTheTableBeyondMaxKeys() throws Exception {
        listener.recordKeys = false;
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(1, Duration.ofHours(1)), 1_000);
        int threads = 4;
        int perThread = 25_000;
        AtomicInteger grants = new AtomicInteger();
        AtomicInteger maxSize = new AtomicInteger();
        runConcurrently(threads, t -> {
            for (int i = 0; i < perThread; i++) {
                if (limiter.tryAcquire("t" + t + "-" + i).allowed()) {
                    grants.incrementAndGet();
                }
                maxSize.accumulateAndGet(limiter.table.size(), Math::max);
            }
        });
        assertThat(maxSize.get()).isLessThanOrEqualTo(1_000);
        int tracked = 0;
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < perThread; i++) {
                tracked += limiter.table.tracks("t" + t + "-" + i) ? 1 : 0;
            }
        }
        assertThat(tracked).isEqualTo(limiter.table.size()).isEqualTo(1_000);
        // On a frozen clock each state that was granted stays busy: each tracked key once, the overflow once.
        assertThat(grants.get()).isLessThanOrEqualTo(1_000 + 1);
        assertThat(listener.full.sum()).isGreaterThanOrEqualTo(threads * perThread - 1_000L);
    }

    /**
     * Threads walk the same fresh keys in the same order, so they race to insert each one, while a sweeper
     * retires the fresh states (idle until their first grant). The count of slots must stay exact.
     */
    @RepeatedTest(5)
    void racingInsertsOfTheSameKeysKeepTheSlotCountExact() throws Exception {
        listener.recordKeys = false;
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(2, Duration.ofHours(1)), 100_000);
        int keys = 5_000;
        int acquirers = 4;
        AtomicIntegerArray grants = new AtomicIntegerArray(keys);
        // The clock is frozen: the sweeper sweeps at the one instant there is.
        runWhileSweeping(limiter, clock.nanos(), acquirers, t -> {
            for (int k = 0; k < keys; k++) {
                if (limiter.tryAcquire("same" + k).allowed()) {
                    grants.incrementAndGet(k);
                }
            }
        });
        int tracked = 0;
        for (int k = 0; k < keys; k++) {
            assertThat(grants.get(k)).as("grants to same%d", k).isEqualTo(2);
            tracked += limiter.table.tracks("same" + k) ? 1 : 0;
        }
        assertThat(tracked).isEqualTo(keys);
        assertThat(limiter.table.size()).isEqualTo(keys);
    }
}
