package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A state the key table retired (idle, swept) while a request held it is looked up again: whether it was
 * already dropped or is still in the table, and while a sweeper races concurrent acquires, every key gets
 * exactly its limit.
 */
class KeyTableRetiredStateTest extends KeyTableFixture {
    @Test
    void aStateRetiredAndDroppedWhileHeldIsLookedUpAgain() {
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofHours(1)), 10);
        Algorithm algorithm = limiter.algorithm();
        KeyState held = limiter.table.state("K", algorithm, clock.nanos());

        limiter.table.sweep(algorithm, clock.nanos());
        assertThat(listener.evictedKeys).containsExactly("K");
        assertThat(algorithm.acquire(held, clock.nanos(), 1, true))
                .as("retired")
                .isNull();

        limiter.table.forget("K", held); // already gone: nothing happens
        assertThat(limiter.table.size()).isZero();

        Decision decision = limiter.tryAcquire("K");
        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isEqualTo(4);
        assertThat(stateOf(limiter, "K")).isNotSameAs(held);
        assertThat(limiter.table.size()).isEqualTo(1);
    }

    @Test
    void aRetiredStateStillInTheTableIsForgottenAndReplaced() {
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofHours(1)), 10);
        Algorithm algorithm = limiter.algorithm();
        KeyState retired = limiter.table.state("K", algorithm, clock.nanos());
        assertThat(algorithm.retireIfIdle(retired, clock.nanos())).isTrue();
        assertThat(limiter.table.tracks("K")).isTrue();

        Decision decision = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> limiter.tryAcquire("K"));

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.remaining()).isEqualTo(4);
        KeyState replacement = stateOf(limiter, "K");
        assertThat(replacement).isNotSameAs(retired);
        assertThat(limiter.table.size()).isEqualTo(1);

        limiter.table.forget("K", retired); // not the current state: nothing happens
        assertThat(stateOf(limiter, "K")).isSameAs(replacement);
        assertThat(limiter.table.size()).isEqualTo(1);
        assertThat(listener.evicted.sum())
                .as("forgotten, not evicted by a sweep")
                .isZero();
    }

    @Test
    void tryConsumeAlsoForgetsARetiredStateAndLooksTheKeyUpAgain() {
        InMemoryRateLimiter limiter =
                (InMemoryRateLimiter) limiter(TokenBucket.of(5, Duration.ofHours(1)), 10, LimiterListener.none());
        Algorithm algorithm = limiter.algorithm();
        KeyState retired = limiter.table.state("K", algorithm, clock.nanos());
        assertThat(algorithm.retireIfIdle(retired, clock.nanos())).isTrue();

        boolean granted = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> limiter.tryConsume("K"));

        assertThat(granted).isTrue();
        assertThat(stateOf(limiter, "K")).isNotSameAs(retired);
        assertThat(limiter.table.size()).isEqualTo(1);
        assertThat(granted(limiter, "K", 10)).isEqualTo(4);
    }

    /**
     * Acquirers race a thread that sweeps in a loop: fresh states are idle until their first grant, so the
     * sweeper retires some of them between lookup and acquire, and the acquirers must look the key up again.
     * The clock is frozen within each round, so every key gets exactly its limit, no more and no less.
     */
    @ParameterizedTest
    @MethodSource("policiesOfFive")
    void concurrentAcquiresGetExactlyTheLimitWhileASweeperRetiresIdleStates(LimitPolicy policy) throws Exception {
        // No listener, so tryConsume takes its own path; leases can only be taken with tryAcquire.
        InMemoryLimiter<?> limiter = limiter(policy, 10_000, LimiterListener.none());
        boolean consume = !(policy instanceof ConcurrencyLimit);
        int keys = 200;
        int acquirers = 3;
        int rounds = 4; // 12 attempts per key for 5 permits
        for (int phase = 0; phase < 6; phase++) {
            clock.advance(Duration.ofHours(6)); // every key idle again
            long now = clock.nanos();
            AtomicIntegerArray grants = new AtomicIntegerArray(keys);
            runWhileSweeping(limiter, now, acquirers, t -> {
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < keys; k++) {
                        int key = (k + t * 67) % keys;
                        boolean granted = consume && t % 2 == 1
                                ? ((InMemoryRateLimiter) limiter).tryConsume("key" + key)
                                : limiter.tryAcquire("key" + key).allowed();
                        if (granted) {
                            grants.incrementAndGet(key);
                        }
                    }
                }
            });
            for (int k = 0; k < keys; k++) {
                assertThat(grants.get(k))
                        .as("grants to key%d in phase %d", k, phase)
                        .isEqualTo(5);
            }
            assertThat(limiter.table.size()).isEqualTo(keys);
        }
    }
}
