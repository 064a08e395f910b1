package dev.sluice.redis.internal;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The script against the in-memory engine, which is the specification: random sequences of requests (acquires,
 * peeks, refunds, resets and releases) on one limiter of each policy, on the same virtual clock, must get the same
 * decisions to the nanosecond; so must long histories of a log or leases. Chains and policy changes are in {@link
 * LimitScriptChainDifferentialTest} and {@link LimitScriptPolicyChangeDifferentialTest}.
 */
@Tag("slow")
class LimitScriptDifferentialTest extends LimitScriptDifferential {
    static Stream<Arguments> policies() {
        return Stream.of(
                Arguments.of(TokenBucket.perSecond(10)),
                Arguments.of(TokenBucket.of(3, Duration.ofSeconds(1))), // 333,333,334 ns a permit
                Arguments.of(TokenBucket.of(5, 3, Duration.ofSeconds(1))),
                Arguments.of(TokenBucket.of(1_000_000_000_000L, Duration.ofNanos(4_000_000_000_000_000L))),
                Arguments.of(Gcra.of(7, Duration.ofSeconds(1), 5)),
                Arguments.of(Gcra.of(1, Duration.ofNanos(TWO_52), 1)),
                Arguments.of(FixedWindow.of(5, Duration.ofSeconds(1))),
                Arguments.of(FixedWindow.of(3, Duration.ofNanos(333_333_333))),
                Arguments.of(FixedWindow.of(10, Duration.ofNanos(7))),
                Arguments.of(FixedWindow.of(1_000_000_000_000L, Duration.ofNanos(TWO_52))),
                Arguments.of(FixedWindow.of(4, Duration.ofNanos(4_000_000_000_000_007L))),
                Arguments.of(FixedWindow.of(100, Duration.ofHours(1))),
                Arguments.of(SlidingWindowCounter.of(5, Duration.ofSeconds(1))),
                Arguments.of(SlidingWindowCounter.of(7, Duration.ofNanos(777_777_777))),
                Arguments.of(SlidingWindowCounter.of(1_000_000_000_000L, Duration.ofNanos(TWO_52 / 2))),
                Arguments.of(SlidingWindowCounter.of(3, Duration.ofNanos(2_000_000_000_000_003L))),
                Arguments.of(SlidingWindowCounter.of(100, Duration.ofMinutes(1))),
                Arguments.of(SlidingWindowLog.of(5, Duration.ofSeconds(1))),
                Arguments.of(SlidingWindowLog.of(10, Duration.ofNanos(333_333_333))),
                Arguments.of(SlidingWindowLog.of(1_000_000, Duration.ofNanos(TWO_52))),
                Arguments.of(ConcurrencyLimit.of(3, Duration.ofSeconds(1))),
                Arguments.of(ConcurrencyLimit.of(5, Duration.ofNanos(777_777_777))),
                Arguments.of(ConcurrencyLimit.of(1_000_000, Duration.ofNanos(TWO_52))));
    }

    @ParameterizedTest
    @MethodSource("policies")
    void randomSequencesDecideAsTheInMemoryEngine(LimitPolicy policy) {
        long seed = 1;
        for (Instant start : STARTS) {
            for (int i = 0; i < 2; i++) {
                try (DifferentialRun run = new DifferentialRun(runner, policy, start, seed++)) {
                    run.steps(300);
                }
            }
        }
    }

    static Stream<Arguments> logs() {
        return Stream.of(
                Arguments.of(SlidingWindowLog.of(100, Duration.ofSeconds(1))),
                Arguments.of(ConcurrencyLimit.of(100, Duration.ofSeconds(1))));
    }

    @ParameterizedTest
    @MethodSource("logs")
    void longHistoriesAreScannedInOrder(LimitPolicy policy) {
        try (DifferentialRun run = new DifferentialRun(runner, policy, ManualClock.DEFAULT_START, 11)) {
            for (int i = 0; i < 100; i++) {
                run.acquire("k", 1);
                run.advance(1_000_000 + i);
            }
            run.acquire("k", 1);
            run.acquire("k", 60);
            run.acquire("k", 100);
            run.advance(20_000_000);
            run.acquire("k", 97);
            run.advance(900_000_000);
            run.acquire("k", 30);
            run.acquire("k", 50);
        }
    }
}
