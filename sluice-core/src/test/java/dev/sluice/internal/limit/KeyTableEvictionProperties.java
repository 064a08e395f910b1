package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.InMemoryEngine;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random traffic on a few keys through a tiny table, next to the same traffic through a table that never
 * runs out of room. Until the tiny table first sends a key to the overflow, every decision must be the same:
 * dropping idle keys is invisible. Throughout, no key ever gets more than its policy allows it on its own,
 * whether its permits came from its slot, the overflow, or both.
 */
class KeyTableEvictionProperties {
    private static final long SECOND = 1_000_000_000L;

    record Request(int key, int permits, long advanceMillis) {}

    record Grant(long at, long permits) {}

    @Provide
    Arbitrary<List<Request>> traffic() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, 5);
        Arbitrary<Integer> permits = Arbitraries.integers().between(1, 3);
        Arbitrary<Long> advances =
                Arbitraries.of(0L, 0L, 0L, 0L, 1L, 40L, 100L, 250L, 333L, 600L, 1_000L, 1_500L, 61_000L);
        return Combinators.combine(keys, permits, advances)
                .as(Request::new)
                .list()
                .ofMinSize(1)
                .ofMaxSize(80);
    }

    @Property(tries = 300)
    void tokenBucket(@ForAll("traffic") List<Request> traffic, @ForAll @IntRange(min = 1, max = 4) int maxKeys) {
        // 3 permits, one back every 333,333,334 ns
        TokenBucket policy = TokenBucket.of(3, Duration.ofSeconds(1));
        Map<Integer, List<Grant>> grants = run(policy, traffic, maxKeys);
        long interval = policy.nanosPerPermit();
        long tolerance = 3 * interval;
        // Granted permits in [t_i, t_j] × interval ≤ t_j − t_i + tolerance: capacity + rate × time.
        grants.forEach((key, list) -> {
            for (int i = 0; i < list.size(); i++) {
                long sum = 0;
                for (int j = i; j < list.size(); j++) {
                    sum += list.get(j).permits();
                    long span = list.get(j).at() - list.get(i).at();
                    assertThat(sum * interval)
                            .as("key %d: %d permits within %d ns", key, sum, span)
                            .isLessThanOrEqualTo(span + tolerance);
                }
            }
        });
    }

    @Property(tries = 300)
    void fixedWindow(@ForAll("traffic") List<Request> traffic, @ForAll @IntRange(min = 1, max = 4) int maxKeys) {
        Map<Integer, List<Grant>> grants = run(FixedWindow.of(3, Duration.ofSeconds(1)), traffic, maxKeys);
        assertAtMostPerAlignedWindow(grants, 3);
    }

    @Property(tries = 300)
    void slidingWindowCounter(
            @ForAll("traffic") List<Request> traffic, @ForAll @IntRange(min = 1, max = 4) int maxKeys) {
        Map<Integer, List<Grant>> grants = run(SlidingWindowCounter.of(3, Duration.ofSeconds(1)), traffic, maxKeys);
        assertAtMostPerAlignedWindow(grants, 3);
    }

    @Property(tries = 300)
    void slidingWindowLog(@ForAll("traffic") List<Request> traffic, @ForAll @IntRange(min = 1, max = 4) int maxKeys) {
        Map<Integer, List<Grant>> grants = run(SlidingWindowLog.of(3, Duration.ofSeconds(1)), traffic, maxKeys);
        // At most 3 in any span of one second.
        grants.forEach((key, list) -> {
            for (int i = 0; i < list.size(); i++) {
                long sum = 0;
                for (int j = i;
                        j < list.size() && list.get(j).at() < list.get(i).at() + SECOND;
                        j++) {
                    sum += list.get(j).permits();
                }
                assertThat(sum)
                        .as(
                                "key %d: permits in the second from %d",
                                key, list.get(i).at())
                        .isLessThanOrEqualTo(3);
            }
        });
    }

    private static void assertAtMostPerAlignedWindow(Map<Integer, List<Grant>> grants, long limit) {
        grants.forEach((key, list) -> {
            Map<Long, Long> perWindow = new HashMap<>();
            list.forEach(grant -> perWindow.merge(Math.floorDiv(grant.at(), SECOND), grant.permits(), Long::sum));
            perWindow.forEach((window, sum) ->
                    assertThat(sum).as("key %d in window %d", key, window).isLessThanOrEqualTo(limit));
        });
    }

    /** Replays {@code traffic} on a table of {@code maxKeys} and on an unbounded one; returns the grants. */
    private static Map<Integer, List<Grant>> run(LimitPolicy policy, List<Request> traffic, int maxKeys) {
        ManualClock clock = new ManualClock();
        AtomicLong overflowed = new AtomicLong();
        LimiterListener listener = new LimiterListener() {
            @Override
            public void onKeyTableFull(String limiter, String key) {
                overflowed.incrementAndGet();
            }
        };
        InMemoryLimiter<?> bounded = KeyTableFixture.open(
                new InMemoryEngine(clock),
                policy,
                LimiterOptions.builder().maxKeys(maxKeys).listener(listener).build());
        InMemoryLimiter<?> reference =
                KeyTableFixture.open(new InMemoryEngine(clock), policy, LimiterOptions.defaults());
        Map<Integer, List<Grant>> grants = new HashMap<>();
        for (Request request : traffic) {
            clock.advance(Duration.ofMillis(request.advanceMillis()));
            String key = "key" + request.key();
            Decision decision = bounded.tryAcquire(key, request.permits());
            Decision expected = reference.tryAcquire(key, request.permits());
            if (overflowed.get() == 0) {
                assertThat(decision).as("%s before any overflow", request).isEqualTo(expected);
            }
            assertThat(bounded.table.size()).isLessThanOrEqualTo(maxKeys);
            if (decision.allowed()) {
                grants.computeIfAbsent(request.key(), k -> new ArrayList<>())
                        .add(new Grant(clock.nanos(), request.permits()));
            }
        }
        return grants;
    }
}
