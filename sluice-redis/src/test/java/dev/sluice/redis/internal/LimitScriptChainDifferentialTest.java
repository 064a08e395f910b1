package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.redis.internal.DifferentialChainRun.Link;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The script's chains against the in-memory chain: random requests through chains of limiters (the same limiter
 * twice, leases among rates) must be decided all or nothing as the in-memory chain decides them, a denial leaving
 * every Redis key as it was; and a chain sees the leases its earlier layers took on the same key.
 */
@Tag("slow")
class LimitScriptChainDifferentialTest extends LimitScriptDifferential {
    static Stream<Arguments> chains() {
        TokenBucket bucket = TokenBucket.of(4, 3, Duration.ofSeconds(1));
        FixedWindow fixed = FixedWindow.of(6, Duration.ofNanos(777_777_777));
        SlidingWindowCounter counter = SlidingWindowCounter.of(5, Duration.ofSeconds(1));
        SlidingWindowLog log = SlidingWindowLog.of(4, Duration.ofNanos(700_000_001));
        ConcurrencyLimit leases = ConcurrencyLimit.of(3, Duration.ofNanos(900_000_000));
        Function<String, String> own = context -> context;
        Function<String, String> global = context -> "all";
        Function<String, String> half = context -> context.equals("a") ? "a" : "b";
        return Stream.of(
                Arguments.of(
                        "bucket per key, fixed window global",
                        List.of(link("x", bucket, own), link("y", fixed, global))),
                Arguments.of(
                        "counter, log, leases",
                        List.of(link("x", counter, own), link("y", log, own), link("z", leases, global))),
                Arguments.of("one bucket twice", List.of(link("x", bucket, own), link("x", bucket, half))),
                Arguments.of(
                        "one log twice around leases",
                        List.of(link("x", log, own), link("y", leases, global), link("x", log, half))),
                Arguments.of("one lease limit twice", List.of(link("x", leases, own), link("x", leases, half))),
                Arguments.of(
                        "fixed, counter, fixed",
                        List.of(link("x", fixed, own), link("y", counter, global), link("x", fixed, half))),
                Arguments.of(
                        "one counter twice, bucket",
                        List.of(link("x", counter, global), link("x", counter, half), link("y", bucket, own))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chains")
    void chainsDecideAllOrNothingAsTheInMemoryChain(String name, List<Link> links) {
        for (long seed = 1; seed <= 4; seed++) {
            new DifferentialChainRun(runner, links, seed).steps(300);
        }
    }

    @Test
    void aChainSeesTheLeasesItsEarlierLayersTookOnTheSameKey() {
        ManualClock clock = new ManualClock(ManualClock.DEFAULT_START);
        try (Sluice memory = Sluice.inMemory(clock)) {
            ConcurrencyLimit slow = ConcurrencyLimit.of(5, Duration.ofSeconds(10));
            ConcurrencyLimit fast = ConcurrencyLimit.of(5, Duration.ofSeconds(1));
            ConcurrencyLimiter limiter = memory.concurrencyLimiter("x", slow);
            LimitChain<String> chain = memory.<String>chain()
                    .layer(limiter, "k")
                    .layer(limiter, "k")
                    .build();
            LimitScript.Layer held = runner.layer("same-leases", "k", slow, "held");
            assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
            assertThat(runner.acquire(List.of(held), 3, clock.nanos()).allowed())
                    .isTrue();
            clock.advanceNanos(1_000_000_000);
            limiter.setPolicy(fast);

            // the first layer takes 1 of the 2 free permits, expiring before the 3 held; the second is denied
            // until the first layer's lease expires
            Decision expected = chain.tryAcquire("ctx", 2);
            LimitScript.Reply reply = runner.acquire(
                    List.of(
                            runner.layer("same-leases", "k", fast, "first"),
                            runner.layer("same-leases", "k", fast, "second")),
                    2,
                    clock.nanos());

            assertThat(expected.denied()).isTrue();
            assertThat(expected.retryAfterNanos()).isEqualTo(1_000_000_000);
            assertThat(actual(DifferentialChainRun.combine(reply))).isEqualTo(expected(expected));
        }
    }

    private static Link link(String limiter, LimitPolicy policy, Function<String, String> key) {
        return new Link(limiter, policy, key);
    }
}
