package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** The GCRA / token bucket math with literal numbers: one theoretical arrival time per key. */
class GcraAlgorithmTest {
    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final long NOW = 1_000 * S;

    /** 10 permits, refilled at 1 per second. */
    private static final TokenBucket ONE_PER_SECOND = TokenBucket.of(10, 1, Duration.ofSeconds(1));
    /** 10 permits, refilled at 100 per second. */
    private static final TokenBucket HUNDRED_PER_SECOND = TokenBucket.of(10, 100, Duration.ofSeconds(1));

    private static GcraAlgorithm algorithm(dev.sluice.limit.LimitPolicy policy) {
        return (GcraAlgorithm) Algorithm.of("api", policy, new ManualClock());
    }

    private static long tat(KeyState state) {
        return ((GcraAlgorithm.State) state).tat;
    }

    private static Decision allowed(long remaining, long limit, long resetAt) {
        return new Decision(true, remaining, limit, 0, resetAt, "api", Lease.none());
    }

    private static Decision denied(long remaining, long limit, long retryAfter, long resetAt) {
        return new Decision(false, remaining, limit, retryAfter, resetAt, "api", Lease.none());
    }

    @Test
    void tokenBucketAndGcraPoliciesMapToIntervalAndTolerance() {
        GcraAlgorithm bucket = algorithm(ONE_PER_SECOND);
        assertThat(bucket.interval).isEqualTo(S);
        assertThat(bucket.tolerance).isEqualTo(10 * S);
        assertThat(bucket.limit).isEqualTo(10);

        GcraAlgorithm gcra = algorithm(Gcra.of(10, Duration.ofSeconds(1), 5));
        assertThat(gcra.interval).isEqualTo(100 * MS);
        assertThat(gcra.tolerance).isEqualTo(500 * MS);
        assertThat(gcra.limit).isEqualTo(5);

        // 3 per second: 333,333,334 ns per permit, rounded up so the rate is never exceeded.
        GcraAlgorithm third = algorithm(TokenBucket.of(3, Duration.ofSeconds(1)));
        assertThat(third.interval).isEqualTo(333_333_334L);
        assertThat(third.tolerance).isEqualTo(1_000_000_002L);
    }

    @Test
    void acquireTakesPermitsAndPushesTheArrivalTime() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        assertThat(gcra.isIdle(state, NOW)).isTrue();

        assertThat(gcra.acquire(state, NOW, 1, true)).isEqualTo(allowed(9, 10, NOW + S));
        assertThat(tat(state)).isEqualTo(NOW + S);
        assertThat(gcra.acquire(state, NOW, 9, true)).isEqualTo(allowed(0, 10, NOW + 10 * S));
        assertThat(tat(state)).isEqualTo(NOW + 10 * S);

        // Empty: the next permit comes back in exactly one interval.
        assertThat(gcra.acquire(state, NOW, 1, true)).isEqualTo(denied(0, 10, S, NOW + 10 * S));
        assertThat(gcra.acquire(state, NOW + 500 * MS, 1, true)).isEqualTo(denied(0, 10, 500 * MS, NOW + 10 * S));
        assertThat(tat(state)).as("denials change nothing").isEqualTo(NOW + 10 * S);

        assertThat(gcra.acquire(state, NOW + S, 1, true)).isEqualTo(allowed(0, 10, NOW + 11 * S));
    }

    @Test
    void partialRefillIsContinuousAndRemainingIsRoundedDown() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        gcra.acquire(state, NOW, 10, true); // tat = NOW + 10 s

        long later = NOW + 2_500 * MS; // 2.5 permits back
        assertThat(gcra.acquire(state, later, 3, false)).isEqualTo(denied(2, 10, 500 * MS, NOW + 10 * S));
        assertThat(gcra.acquire(state, later, 2, true)).isEqualTo(allowed(0, 10, NOW + 12 * S));
        assertThat(tat(state)).isEqualTo(NOW + 12 * S);
    }

    @Test
    void anIdleKeyStartsFromNowNotFromItsOldArrivalTime() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        gcra.acquire(state, NOW, 10, true);
        // 100 s later the bucket is full again, and no fuller than full.
        assertThat(gcra.acquire(state, NOW + 100 * S, 10, true)).isEqualTo(allowed(0, 10, NOW + 110 * S));
        assertThat(gcra.acquire(state, NOW + 100 * S, 1, true)).isEqualTo(denied(0, 10, S, NOW + 110 * S));
    }

    @Test
    void aPeekDecidesWithoutTaking() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        gcra.acquire(state, NOW, 4, true);
        assertThat(gcra.acquire(state, NOW, 6, false)).isEqualTo(allowed(0, 10, NOW + 10 * S));
        assertThat(gcra.acquire(state, NOW, 7, false)).isEqualTo(denied(6, 10, S, NOW + 4 * S));
        assertThat(tat(state)).isEqualTo(NOW + 4 * S);
    }

    @Test
    void consumeDecidesExactlyAsAcquireWithoutADecision() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        assertThat(gcra.consume(state, NOW, 4)).isEqualTo(Algorithm.GRANTED);
        assertThat(tat(state)).isEqualTo(NOW + 4 * S);
        assertThat(gcra.consume(state, NOW, 7)).isEqualTo(Algorithm.DENIED);
        assertThat(tat(state)).isEqualTo(NOW + 4 * S);
        assertThat(gcra.consume(state, NOW, 6)).isEqualTo(Algorithm.GRANTED);
        assertThat(gcra.consume(state, NOW + S - 1, 1)).isEqualTo(Algorithm.DENIED);
        assertThat(gcra.consume(state, NOW + S, 1)).isEqualTo(Algorithm.GRANTED);
        assertThat(tat(state)).isEqualTo(NOW + 11 * S);

        KeyState idle = gcra.newState();
        assertThat(gcra.retireIfIdle(idle, NOW)).isTrue();
        assertThat(gcra.consume(idle, NOW, 1)).isEqualTo(Algorithm.RETIRED);
    }

    @Test
    void gcraSpacesRequestsWithABurstTolerance() {
        GcraAlgorithm gcra = algorithm(Gcra.of(10, Duration.ofSeconds(1), 5)); // every 100 ms, bursts of 5
        KeyState state = gcra.newState();
        for (int i = 0; i < 5; i++) {
            assertThat(gcra.acquire(state, NOW, 1, true).allowed()).isTrue();
        }
        assertThat(gcra.acquire(state, NOW, 1, true)).isEqualTo(denied(0, 5, 100 * MS, NOW + 500 * MS));
        assertThat(gcra.acquire(state, NOW + 99 * MS, 1, true)).isEqualTo(denied(0, 5, MS, NOW + 500 * MS));
        assertThat(gcra.acquire(state, NOW + 100 * MS, 1, true)).isEqualTo(allowed(0, 5, NOW + 600 * MS));
    }

    @Test
    void undoReturnsPermitsButNeverMoreThanAFullBucket() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        Decision granted = gcra.acquire(state, NOW, 3, true);
        gcra.undo(state, NOW, 3, granted);
        assertThat(tat(state)).isEqualTo(NOW);
        assertThat(gcra.isIdle(state, NOW)).isTrue();

        gcra.acquire(state, NOW, 1, true); // tat = NOW + 1 s
        gcra.undo(state, NOW, 5, granted); // more than was taken: clamped at "full"
        assertThat(tat(state)).isEqualTo(NOW);
        assertThat(gcra.acquire(state, NOW, 10, true)).isEqualTo(allowed(0, 10, NOW + 10 * S));
        assertThat(gcra.acquire(state, NOW, 1, true).denied()).isTrue();

        // Undo of 2 out of 10 used: 2 permits back.
        gcra.undo(state, NOW, 2, granted);
        assertThat(tat(state)).isEqualTo(NOW + 8 * S);
        // Undo once the bucket is full again returns nothing: the state is left as it is, idle.
        gcra.undo(state, NOW + 9 * S, 2, granted);
        assertThat(tat(state)).isEqualTo(NOW + 8 * S);
        assertThat(gcra.isIdle(state, NOW + 9 * S)).isTrue();
        // Undo on a state that never took anything (its arrival time is far in the past) changes nothing.
        KeyState fresh = gcra.newState();
        long freshTat = tat(fresh);
        gcra.undo(fresh, NOW, 2, granted);
        assertThat(tat(fresh)).isEqualTo(freshTat);
        assertThat(gcra.acquire(fresh, NOW, 10, true)).isEqualTo(allowed(0, 10, NOW + 10 * S));
    }

    @Test
    void adoptConvertsDebtToTheNewInterval() {
        GcraAlgorithm slow = algorithm(ONE_PER_SECOND);
        GcraAlgorithm fast = algorithm(HUNDRED_PER_SECOND);
        assertThat(fast.interval).isEqualTo(10 * MS);
        KeyState state = slow.newState();
        slow.acquire(state, NOW, 10, true); // 10 tokens of debt at 1 s each: tat = NOW + 10 s

        fast.adopt(state, slow, NOW);

        // 10 tokens of debt at 10 ms each: 100 ms.
        assertThat(tat(state)).isEqualTo(NOW + 100 * MS);
        assertThat(fast.acquire(state, NOW, 1, true)).isEqualTo(denied(0, 10, 10 * MS, NOW + 100 * MS));
        assertThat(fast.acquire(state, NOW + 100 * MS, 10, true)).isEqualTo(allowed(0, 10, NOW + 200 * MS));
    }

    @Test
    void adoptConvertsPartialDebtAndBackToTheSlowerInterval() {
        GcraAlgorithm slow = algorithm(ONE_PER_SECOND);
        GcraAlgorithm fast = algorithm(HUNDRED_PER_SECOND);
        KeyState state = slow.newState();
        slow.acquire(state, NOW, 10, true);

        fast.adopt(state, slow, NOW + 4 * S); // 6 s of debt = 6 tokens = 60 ms
        assertThat(tat(state)).isEqualTo(NOW + 4 * S + 60 * MS);
        assertThat(fast.acquire(state, NOW + 4 * S, 4, false).allowed()).isTrue();
        assertThat(fast.acquire(state, NOW + 4 * S, 5, false).denied()).isTrue();

        slow.adopt(state, fast, NOW + 4 * S); // 6 tokens at 1 s again
        assertThat(tat(state)).isEqualTo(NOW + 10 * S);
    }

    @Test
    void adoptRoundsDebtUpSoAPolicyChangeNeverCreatesPermits() {
        GcraAlgorithm three = new GcraAlgorithm("api", ONE_PER_SECOND, 3, 10);
        GcraAlgorithm two = new GcraAlgorithm("api", ONE_PER_SECOND, 2, 10);
        KeyState state = three.newState();
        ((GcraAlgorithm.State) state).tat = NOW + 5; // 5 ns of debt at 3 ns per permit
        two.adopt(state, three, NOW);
        assertThat(tat(state)).isEqualTo(NOW + 4); // ⌈5 × 2 / 3⌉
    }

    @Test
    void adoptLeavesIdleAndRetiredStatesAlone() {
        GcraAlgorithm slow = algorithm(ONE_PER_SECOND);
        GcraAlgorithm fast = algorithm(HUNDRED_PER_SECOND);
        KeyState idle = slow.newState();
        slow.acquire(idle, NOW, 2, true); // tat = NOW + 2 s
        fast.adopt(idle, slow, NOW + 3 * S);
        assertThat(tat(idle)).isEqualTo(NOW + 2 * S);

        KeyState retired = slow.newState();
        assertThat(slow.retireIfIdle(retired, NOW)).isTrue();
        fast.adopt(retired, slow, NOW);
        assertThat(fast.acquire(retired, NOW, 1, true)).isNull();
    }

    @Test
    void adoptCapsHugeDebt() {
        GcraAlgorithm fast = new GcraAlgorithm("api", ONE_PER_SECOND, 1, 10);
        GcraAlgorithm slow = new GcraAlgorithm("api", ONE_PER_SECOND, Long.MAX_VALUE / 8, 1);
        KeyState state = fast.newState();
        ((GcraAlgorithm.State) state).tat = NOW + 1_000 * S;
        slow.adopt(state, fast, NOW);
        assertThat(tat(state)).isEqualTo(NOW + Long.MAX_VALUE / 4);
    }

    @Test
    void retireIfIdleRetiresOnlyIdleStates() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        gcra.acquire(state, NOW, 2, true); // busy until NOW + 2 s

        assertThat(gcra.isIdle(state, NOW + 2 * S - 1)).isFalse();
        assertThat(gcra.retireIfIdle(state, NOW + 2 * S - 1)).isFalse();
        assertThat(tat(state)).isEqualTo(NOW + 2 * S);
        assertThat(gcra.acquire(state, NOW + S, 1, false)).isEqualTo(allowed(8, 10, NOW + 3 * S));

        assertThat(gcra.isIdle(state, NOW + 2 * S)).isTrue();
        assertThat(gcra.retireIfIdle(state, NOW + 2 * S)).isTrue();
        assertThat(gcra.retireIfIdle(state, NOW + 2 * S)).as("already retired").isFalse();

        // A retired state is never used again: acquire asks the caller to look the key up again, undo is ignored.
        assertThat(gcra.acquire(state, NOW + 3 * S, 1, true)).isNull();
        assertThat(gcra.acquire(state, NOW + 3 * S, 1, false)).isNull();
        gcra.undo(state, NOW + 3 * S, 1, allowed(9, 10, NOW));
        assertThat(gcra.acquire(state, NOW + 3 * S, 1, true)).isNull();
    }

    @Test
    void aFreshStateIsIdle() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState state = gcra.newState();
        assertThat(gcra.isIdle(state, NOW)).isTrue();
        assertThat(gcra.retireIfIdle(state, NOW)).isTrue();
    }

    /**
     * A fresh state is full whatever the clock reads, including before 1970 (a ManualClock accepts any start,
     * and SluiceClock.instant() handles negative readings). With a fresh arrival time of 0, the epoch, such a key
     * was treated as deep in debt: denied, and never idle.
     */
    @Test
    void aFreshKeyIsFullAndIdleOnAClockBeforeTheEpoch() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        long before1970 = -1_000 * S;
        KeyState state = gcra.newState();
        assertThat(gcra.isIdle(state, before1970)).isTrue();
        assertThat(gcra.acquire(state, before1970, 1, true)).isEqualTo(allowed(9, 10, before1970 + S));
    }

    @Test
    void copyMakesTheTargetExactlyAsUsedAsTheSource() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState source = gcra.newState();
        gcra.acquire(source, NOW, 7, true);
        KeyState target = gcra.newState();
        gcra.copy(source, target);
        assertThat(tat(target)).isEqualTo(NOW + 7 * S);
        assertThat(gcra.acquire(target, NOW, 4, true)).isEqualTo(denied(3, 10, S, NOW + 7 * S));
        assertThat(gcra.acquire(target, NOW, 3, true)).isEqualTo(allowed(0, 10, NOW + 10 * S));
        assertThat(tat(source)).as("the source is not touched").isEqualTo(NOW + 7 * S);
    }

    @Test
    void copyFromARetiredStateLeavesTheTargetFresh() {
        GcraAlgorithm gcra = algorithm(ONE_PER_SECOND);
        KeyState source = gcra.newState();
        gcra.retireIfIdle(source, NOW);
        KeyState target = gcra.newState();
        gcra.copy(source, target);
        assertThat(tat(target)).isEqualTo(tat(gcra.newState()));
        assertThat(gcra.acquire(target, NOW, 10, true)).isEqualTo(allowed(0, 10, NOW + 10 * S));
    }

    @RepeatedTest(20)
    void concurrentAcquiresOnOneStateGrantExactlyTheCapacity() throws Exception {
        GcraAlgorithm gcra = algorithm(TokenBucket.of(1_000, Duration.ofHours(1)));
        KeyState state = gcra.newState();
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger granted = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 600; i++) {
                    if (gcra.acquire(state, NOW, 1, true).allowed()) {
                        granted.incrementAndGet();
                    }
                }
            }));
        }
        workers.forEach(Thread::start);
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertThat(granted.get()).isEqualTo(1_000);
        assertThat(tat(state)).isEqualTo(NOW + gcra.tolerance);
    }
}
