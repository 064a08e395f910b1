package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sweeps of the key table: only idle keys are dropped (a key dropped while idle comes back as if it never
 * left, a busy key keeps its exact state), and sweeps run when a full table has sent a quarter of maxKeys to the
 * overflow, after a second of clock time, or on an insert a minute after the last idle sweep.
 */
class KeyTableSweepTest extends KeyTableFixture {
    private Decision peek(InMemoryLimiter<?> limiter, String key) {
        return limiter.decide(limiter.algorithm(), key, clock.nanos(), 1, false);
    }

    @Test
    void idleKeysAreEvictedWhenRoomIsNeeded() {
        // 5 per second: a key that took 1 permit is idle 200 ms later.
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofSeconds(1)), 100);
        for (int i = 0; i < 100; i++) {
            limiter.tryAcquire("old" + i);
        }
        assertThat(limiter.tryAcquire("early").allowed()).isTrue();
        assertThat(listener.fullKeys).containsExactly("early");

        clock.advance(Duration.ofSeconds(1));
        for (int i = 0; i < 100; i++) {
            Decision decision = limiter.tryAcquire("new" + i);
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.remaining()).isEqualTo(4);
            assertThat(limiter.table.tracks("new" + i)).isTrue();
        }
        assertThat(listener.fullKeys).containsExactly("early");
        assertThat(listener.evictedKeys).hasSize(100).allMatch(key -> key.startsWith("old"));
        assertThat(limiter.table.size()).isEqualTo(100);
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.table.tracks("old" + i)).isFalse();
        }
    }

    @Test
    void aBoundKeyWhoseStateWasSweptAwayFindsItsKeyAgainWithoutGainingPermits() {
        InMemoryRateLimiter limiter = rateLimiter(TokenBucket.of(2, Duration.ofSeconds(1)), 10);
        KeyLimiter bound = limiter.forKey("K");
        assertThat(bound.tryConsume(2)).isTrue();

        clock.advance(Duration.ofSeconds(1));
        limiter.table.sweep(limiter.algorithm(), clock.nanos());
        assertThat(limiter.table.tracks("K")).as("idle K was swept away").isFalse();

        assertThat(bound.tryConsume(2)).isTrue();
        assertThat(limiter.table.tracks("K")).as("K is tracked again").isTrue();
        assertThat(bound.tryConsume()).isFalse();
        assertThat(limiter.tryAcquire("K").denied())
                .as("the limiter sees what the bound key took")
                .isTrue();
    }

    @Test
    void aBoundKeyOnAFullTableUsesTheOverflowUntilItGetsItsOwnSlot() {
        // 1 per second: "busy" stays busy for a second, "K" must share the overflow meanwhile.
        InMemoryRateLimiter limiter = rateLimiter(TokenBucket.of(1, Duration.ofSeconds(1)), 1);
        assertThat(limiter.tryConsume("busy")).isTrue();
        KeyLimiter bound = limiter.forKey("K");

        assertThat(bound.tryConsume()).isTrue();
        assertThat(limiter.table.tracks("K")).isFalse();
        assertThat(limiter.tryConsume("someone-else"))
                .as("the overflow is shared and used up")
                .isFalse();

        clock.advance(Duration.ofSeconds(1));
        assertThat(bound.tryConsume()).isTrue();
        assertThat(limiter.table.tracks("K")).as("K got the slot busy left").isTrue();
        assertThat(bound.tryConsume()).isFalse();
        assertThat(limiter.tryConsume("someone-else"))
                .as("the overflow is not charged for what K takes in its own slot")
                .isTrue();
    }

    @Test
    void aKeyEvictedWhileIdleComesBackAsIfNeverEvicted() {
        TokenBucket policy = TokenBucket.of(5, Duration.ofSeconds(1));
        InMemoryLimiter<?> limiter = limiter(policy, 1);
        InMemoryLimiter<?> reference = unbounded(policy);
        sameDecisions(limiter, reference, "K", 3);

        clock.advance(Duration.ofSeconds(1)); // K is idle
        assertThat(limiter.tryAcquire("X").allowed()).isTrue();
        assertThat(listener.evictedKeys).containsExactly("K");
        assertThat(limiter.table.tracks("K")).isFalse();

        clock.advance(Duration.ofSeconds(1)); // X is idle
        sameDecisions(limiter, reference, "K", 7);
        assertThat(listener.evictedKeys).containsExactlyInAnyOrder("K", "X");
        assertThat(limiter.table.tracks("K")).isTrue();
        assertThat(listener.full.sum()).as("K never went to the overflow").isZero();

        clock.advance(Duration.ofMillis(300));
        sameDecisions(limiter, reference, "K", 3);
    }

    @ParameterizedTest
    @MethodSource("policiesOfFive")
    void busyKeysKeepTheirExactStateAcrossSweeps(LimitPolicy policy) {
        listener.recordKeys = false;
        InMemoryLimiter<?> limiter = limiter(policy, 10);
        InMemoryLimiter<?> reference = unbounded(policy);
        List<KeyState> states = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            for (int i = 0; i < 3; i++) {
                assertThat(comparable(limiter.tryAcquire("busy" + k)))
                        .isEqualTo(comparable(reference.tryAcquire("busy" + k)));
            }
            states.add(stateOf(limiter, "busy" + k));
        }
        // 30 minutes of newcomers, full sweeps and explicit sweeps: every policy here is still busy.
        for (int minute = 0; minute < 30; minute++) {
            clock.advance(Duration.ofMinutes(1));
            for (int i = 0; i < 300; i++) {
                limiter.tryAcquire("new" + minute + "-" + i);
            }
            limiter.table.sweep(limiter.algorithm(), clock.nanos());
        }
        assertThat(listener.evicted.sum()).isZero();
        assertThat(listener.full.sum()).isEqualTo(30 * 300);
        for (int k = 0; k < 10; k++) {
            assertThat(stateOf(limiter, "busy" + k)).as("busy%d's state", k).isSameAs(states.get(k));
            assertThat(comparable(peek(limiter, "busy" + k))).isEqualTo(comparable(peek(reference, "busy" + k)));
        }

        // Once they are idle, a sweep drops them: the check above can tell.
        clock.advance(Duration.ofHours(6));
        limiter.table.sweep(limiter.algorithm(), clock.nanos());
        assertThat(listener.evicted.sum()).isEqualTo(10);
        assertThat(limiter.table.size()).isZero();
    }

    // ---- when sweeps run ----

    @Test
    void aFullTableOnAFrozenClockSweepsAfterAQuarterOfMaxKeysWentToTheOverflow() {
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofHours(1)), 100);
        for (int i = 0; i < 99; i++) {
            limiter.tryAcquire("busy" + i);
        }
        stateOf(limiter, "busy0");
        limiter.table.state("idle", limiter.algorithm(), clock.nanos()); // tracked, takes nothing
        assertThat(limiter.table.size()).isEqualTo(100);

        for (int i = 1; i <= 25; i++) {
            limiter.tryAcquire("new" + i);
            assertThat(limiter.table.tracks("new" + i)).isFalse();
        }
        assertThat(listener.full.sum()).isEqualTo(25);
        assertThat(limiter.table.tracks("idle")).isTrue();

        limiter.tryAcquire("new26");
        assertThat(listener.evictedKeys).containsExactly("idle");
        assertThat(limiter.table.tracks("new26")).isTrue();
        assertThat(listener.full.sum()).isEqualTo(25);
    }

    @Test
    void aFullTableSweepsAfterOneSecondOfClockTime() {
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofHours(1)), 100);
        for (int i = 0; i < 99; i++) {
            limiter.tryAcquire("busy" + i);
        }
        limiter.table.state("idle", limiter.algorithm(), clock.nanos());

        limiter.tryAcquire("a");
        clock.advanceNanos(KeyTable.FULL_SWEEP_INTERVAL_NANOS - 1);
        limiter.tryAcquire("b");
        assertThat(listener.fullKeys).containsExactlyInAnyOrder("a", "b");
        assertThat(listener.evicted.sum()).isZero();

        clock.advanceNanos(1);
        limiter.tryAcquire("c");
        assertThat(listener.evictedKeys).containsExactly("idle");
        assertThat(limiter.table.tracks("c")).isTrue();
    }

    @Test
    void theIdleSweepRunsOnInsertAtLeastOnceAMinuteAndReclaimsIdleKeys() {
        listener.recordKeys = false;
        // 5 per second: a key that took 1 permit is idle 200 ms later. Plenty of room: no full sweeps.
        InMemoryLimiter<?> limiter = limiter(TokenBucket.of(5, Duration.ofSeconds(1)), 1_000);
        for (int i = 0; i < 100; i++) {
            limiter.tryAcquire("k" + i);
        }
        clock.advance(Duration.ofSeconds(59));
        limiter.tryAcquire("at59s");
        assertThat(limiter.table.size()).isEqualTo(101);
        assertThat(listener.evicted.sum()).isZero();

        clock.advance(Duration.ofSeconds(1));
        limiter.tryAcquire("k1"); // a tracked key: no insert, no sweep
        assertThat(listener.evicted.sum()).isZero();

        limiter.tryAcquire("at60s"); // an insert a minute after the last sweep: sweeps
        assertThat(listener.evicted.sum()).isEqualTo(100);
        assertThat(limiter.table.size()).isEqualTo(2);
        assertThat(limiter.table.tracks("k1")).isTrue();
        assertThat(limiter.table.tracks("at60s")).isTrue();
        assertThat(limiter.table.tracks("at59s")).isFalse();
        assertThat(limiter.table.tracks("k0")).isFalse();

        // The next idle sweep is a minute after this one.
        clock.advance(Duration.ofSeconds(59));
        limiter.tryAcquire("at119s");
        assertThat(limiter.table.size()).isEqualTo(3);
        clock.advance(Duration.ofSeconds(1));
        limiter.tryAcquire("at120s");
        assertThat(limiter.table.size()).isEqualTo(1);
        assertThat(listener.evicted.sum()).isEqualTo(103);
    }
}
