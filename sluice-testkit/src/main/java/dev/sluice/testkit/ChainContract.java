package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LimitChain}: all or nothing. A denial names the first layer that denied, carries the longest
 * retry-after among the layers that denied, and leaves no layer with permits taken.
 */
public abstract class ChainContract extends ContractSupport {
    /** Per tenant: 5 permits, one back every 200 ms. */
    static final TokenBucket TENANT = TokenBucket.of(5, 5, Duration.ofSeconds(1));

    /** For everyone: 3 permits, one back every 333,333,334 ns. */
    static final TokenBucket GLOBAL = TokenBucket.of(3, 3, Duration.ofSeconds(1));

    private RateLimiter tenant;
    private RateLimiter global;

    /** For subclasses, one per engine. */
    protected ChainContract() {}

    /** Tenant layer (key: the tenant), then the global layer (key: "all"). */
    private LimitChain<String> tenantThenGlobal() {
        tenant = engine.limiter("tenant", TENANT);
        global = engine.limiter("global", GLOBAL);
        return engine.<String>chain().layer(tenant, t -> t).layer(global, "all").build();
    }

    @Test
    void allowsWhenEveryLayerAllowsAndReportsTheLayerWithTheFewestRemaining() {
        LimitChain<String> chain = tenantThenGlobal();

        Decision decision = chain.tryAcquire("acme");

        assertDecision(decision, allowed("global", 3, 2, T0 + 333_333_334L));
        assertThat(decision.lease()).isSameAs(Lease.none());
        assertDecision(tenant.tryAcquire("acme"), allowed("tenant", 5, 3, T0 + 400 * MS));
        assertDecision(global.tryAcquire("all"), allowed("global", 3, 1, T0 + 666_666_668L));
    }

    @Test
    void globalDenialLeavesTheTenantLayerUntouched() {
        LimitChain<String> chain = tenantThenGlobal();
        for (int i = 0; i < 3; i++) {
            assertThat(chain.tryAcquire("acme").allowed()).isTrue();
        }

        for (int i = 0; i < 5; i++) {
            assertDecision(chain.tryAcquire("acme"), denied("global", 3, 0, 333_333_334L, T0 + 1_000_000_002L));
        }

        // 3 taken through the chain, none by the 5 denials: 2 left
        assertDecision(tenant.tryAcquire("acme", 2), allowed("tenant", 5, 0, T0 + SECOND));
        assertThat(tenant.tryAcquire("acme").denied()).isTrue();
    }

    @Test
    void tenantDenialLeavesTheGlobalLayerUntouched() {
        LimitChain<String> chain = tenantThenGlobal();
        tenant.tryAcquire("acme", 5);

        assertDecision(chain.tryAcquire("acme"), denied("tenant", 5, 0, 200 * MS, T0 + SECOND));
        assertDecision(chain.tryAcquire("acme", 2), denied("tenant", 5, 0, 400 * MS, T0 + SECOND));

        assertDecision(global.tryAcquire("all", 3), allowed("global", 3, 0, T0 + 1_000_000_002L));
    }

    @Test
    void tenantsShareTheGlobalLayer() {
        LimitChain<String> chain = tenantThenGlobal();
        assertThat(chain.tryAcquire("acme", 2).allowed()).isTrue();
        assertDecision(chain.tryAcquire("globex"), allowed("global", 3, 0, T0 + 1_000_000_002L));

        assertDecision(chain.tryAcquire("initech"), denied("global", 3, 0, 333_333_334L, T0 + 1_000_000_002L));
        assertDecision(tenant.tryAcquire("initech", 5), allowed("tenant", 5, 0, T0 + SECOND));
    }

    @Test
    void namesTheFirstDenyingLayerAndReportsTheLongestRetryAfterOfAllDenyingLayers() {
        LimitChain<String> chain = tenantThenGlobal();
        tenant.tryAcquire("acme", 5); // tenant: next permit in 200 ms
        global.tryAcquire("all", 3); // global: next permit in 333,333,334 ns

        assertDecision(chain.tryAcquire("acme"), denied("tenant", 5, 0, 333_333_334L, T0 + SECOND));

        LimitChain<String> reversed = engine.<String>chain()
                .layer(global, "all")
                .layer(tenant, t -> t)
                .build();
        assertDecision(reversed.tryAcquire("acme"), denied("global", 3, 0, 333_333_334L, T0 + 1_000_000_002L));
        assertDecision(reversed.tryAcquire("acme", 3), denied("global", 3, 0, SECOND + 2, T0 + 1_000_000_002L));
    }

    @Test
    void denialByAMiddleLayerReturnsThePermitsOfTheLayersBeforeIt() {
        RateLimiter first = engine.limiter("first", TokenBucket.of(4, Duration.ofSeconds(1)));
        RateLimiter middle = engine.limiter("middle", FixedWindow.of(1, Duration.ofSeconds(1)));
        RateLimiter last = engine.limiter("last", SlidingWindowLog.of(1, Duration.ofSeconds(2)));
        LimitChain<String> chain = engine.<String>chain()
                .layer(first, k -> k)
                .layer(middle, k -> k)
                .layer(last, k -> k)
                .build();
        middle.tryAcquire("k"); // denies for 1 s
        last.tryAcquire("k"); // denies for 2 s

        assertDecision(chain.tryAcquire("k"), denied("middle", 1, 0, 2 * SECOND, T0 + SECOND));

        assertDecision(first.tryAcquire("k", 4), allowed("first", 4, 0, T0 + SECOND));
    }

    @Test
    void aLaterLayerThatWouldAllowIsNotChargedWhenAnEarlierOneDenies() {
        LimitChain<String> chain = tenantThenGlobal();
        tenant.tryAcquire("acme", 5);
        for (int i = 0; i < 4; i++) {
            assertThat(chain.tryAcquire("acme").denied()).isTrue();
        }
        assertDecision(global.tryAcquire("all", 3), allowed("global", 3, 0, T0 + 1_000_000_002L));
    }

    static Stream<LimitPolicy> policiesOfFour() {
        return everyPolicy(4, Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @MethodSource("policiesOfFour")
    void earlierLayerGetsItsPermitsBackWhateverItsPolicy(LimitPolicy policy) {
        NamedLimiter earlier = limiterOf(engine, "earlier", policy);
        RateLimiter blocker = engine.limiter("blocker", FixedWindow.of(2, Duration.ofSeconds(1)));
        LimitChain<String> chain = engine.<String>chain()
                .layer(earlier, k -> k)
                .layer(blocker, "all")
                .build();
        Decision held = earlier.tryAcquire("k"); // 3 of 4 left
        blocker.tryAcquire("all", 2);

        for (int i = 0; i < 3; i++) {
            assertDecision(chain.tryAcquire("k", 2), denied("blocker", 2, 0, SECOND, T0 + SECOND));
            assertDecision(chain.tryAcquire("k", 1), denied("blocker", 2, 0, SECOND, T0 + SECOND));
        }

        Decision rest = earlier.tryAcquire("k", 3);
        assertThat(rest.allowed()).as("3 permits left after the denials").isTrue();
        assertThat(rest.remaining()).isZero();
        assertThat(earlier.tryAcquire("k").denied()).isTrue();
        held.release();
        rest.release();
    }

    @Test
    void allowedChainReleasesTheLeasesOfEveryConcurrencyLayer() {
        ConcurrencyLimiter perTenant =
                engine.concurrencyLimiter("tenant-conc", ConcurrencyLimit.of(2, Duration.ofSeconds(10)));
        ConcurrencyLimiter everyone =
                engine.concurrencyLimiter("global-conc", ConcurrencyLimit.of(3, Duration.ofSeconds(10)));
        RateLimiter rate = engine.limiter("rate", TokenBucket.of(10, Duration.ofSeconds(1)));
        LimitChain<String> chain = engine.<String>chain()
                .layer(perTenant, t -> t)
                .layer(rate, "all")
                .layer(everyone, "all")
                .build();

        Decision decision = chain.tryAcquire("acme");
        assertDecision(decision, allowed("tenant-conc", 2, 1, T0 + 10 * SECOND));
        assertThat(decision.lease().expiresAtNanos()).isEqualTo(T0 + 10 * SECOND);
        assertThat(perTenant.tryAcquire("acme", 2).denied()).isTrue();
        assertThat(everyone.tryAcquire("all", 3).denied()).isTrue();

        assertThat(decision.release()).isTrue();
        assertThat(decision.release()).isFalse();

        Decision tenantAlone = perTenant.tryAcquire("acme", 2);
        Decision globalAlone = everyone.tryAcquire("all", 3);
        assertThat(tenantAlone.allowed()).isTrue();
        assertThat(globalAlone.allowed()).isTrue();
        // the token bucket layer keeps its permit: rate limits are not leases
        assertDecision(rate.tryAcquire("all"), allowed("rate", 10, 8, T0 + 200 * MS));
    }

    @Test
    void deniedChainHoldsNoLeaseAndReturnsTheLeasesItTook() {
        ConcurrencyLimiter conc = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(1, Duration.ofSeconds(10)));
        RateLimiter blocker = engine.limiter("blocker", FixedWindow.of(1, Duration.ofSeconds(1)));
        LimitChain<String> chain = engine.<String>chain()
                .layer(conc, k -> k)
                .layer(blocker, k -> k)
                .build();
        blocker.tryAcquire("k");

        Decision decision = chain.tryAcquire("k");

        assertDecision(decision, denied("blocker", 1, 0, SECOND, T0 + SECOND));
        assertThat(decision.lease()).isSameAs(Lease.none());
        assertThat(decision.release()).isFalse();
        assertDecision(conc.tryAcquire("k"), allowed("conc", 1, 0, T0 + 10 * SECOND));
    }

    @Test
    void layersAreKeptInTheOrderTheyWereAdded() {
        LimitChain<String> chain = tenantThenGlobal();

        assertThat(chain.layers()).hasSize(2);
        assertThat(chain.layers().get(0).limiter()).isSameAs(tenant);
        assertThat(chain.layers().get(1).limiter()).isSameAs(global);
        assertThat(chain.layers().get(0).key().apply("acme")).isEqualTo("acme");
        assertThat(chain.layers().get(1).key().apply("acme")).isEqualTo("all");
    }

    @Test
    void acquireWaitsForTheLongestRetryAfterOfTheLayers() throws InterruptedException {
        LimitChain<String> chain = tenantThenGlobal();
        tenant.tryAcquire("acme", 5);
        global.tryAcquire("all", 3);

        Decision decision = chain.acquire("acme", 1, Duration.ofSeconds(1));

        assertThat(decision.allowed()).isTrue();
        assertThat(clock.nanos()).isEqualTo(T0 + 333_333_334L);
        // both layers are left with 0: the first of them is reported
        assertDecision(decision, allowed("tenant", 5, 0, T0 + 1200 * MS));
    }

    @Test
    void acquireGivesUpAtOnceWhenTheLongestRetryAfterExceedsTheTimeout() throws InterruptedException {
        LimitChain<String> chain = tenantThenGlobal();
        tenant.tryAcquire("acme", 5);
        global.tryAcquire("all", 3);

        Decision decision = chain.acquire("acme", 1, Duration.ofMillis(300));

        assertDecision(decision, denied("tenant", 5, 0, 333_333_334L, T0 + SECOND));
        assertThat(clock.nanos()).isEqualTo(T0);
        assertDecision(tenant.tryAcquire("acme"), denied("tenant", 5, 0, 200 * MS, T0 + SECOND));
    }

    @Test
    void acquireAsyncCompletesWhenTheClockReachesTheLongestRetryAfter() {
        LimitChain<String> chain = tenantThenGlobal();
        tenant.tryAcquire("acme", 5);
        global.tryAcquire("all", 3);

        CompletableFuture<Decision> future = chain.acquireAsync("acme", 1, Duration.ofSeconds(1));
        awaitScheduled(1);
        assertThat(future).isNotDone();
        clock.advanceNanos(333_333_333L);
        assertThat(future).isNotDone();
        clock.advanceNanos(1);

        assertDecision(settled(future), allowed("tenant", 5, 0, T0 + 1200 * MS));
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void rejectsBadInputBeforeTakingAnythingFromAnyLayer() {
        LimitChain<String> chain = tenantThenGlobal();
        LimitChain<String> badSecondKey = engine.<String>chain()
                .layer(tenant, t -> t)
                .layer(global, t -> "")
                .build();
        LimitChain<String> nullSecondKey = engine.<String>chain()
                .layer(tenant, t -> t)
                .layer(global, t -> null)
                .build();

        assertRejected(() -> chain.tryAcquire("acme", 4), "permits", "between 1 and 3", "global", "4");
        assertRejected(() -> chain.tryAcquire("acme", 0), "permits", "between 1 and", "0");
        assertRejected(() -> chain.tryAcquire("x".repeat(513)), "key", "512", "513");
        assertRejected(() -> badSecondKey.tryAcquire("acme"), "key", "512", "empty");
        assertRejected(() -> nullSecondKey.tryAcquire("acme"), "key", "512", "null");
        assertRejected(() -> chain.acquire("acme", 1, Duration.ofNanos(-1)), "timeout", "-1 ns");
        assertRejected(() -> chain.acquireAsync("acme", 4, Duration.ofSeconds(1)), "permits", "between 1 and 3");

        assertDecision(tenant.tryAcquire("acme", 5), allowed("tenant", 5, 0, T0 + SECOND));
        assertDecision(global.tryAcquire("all", 3), allowed("global", 3, 0, T0 + 1_000_000_002L));
    }

    @Test
    void buildingAChainWithoutLayersOrWithAnotherEnginesLimiterIsRejected() {
        assertRejected(() -> engine.<String>chain().build(), "at least 1 layer", "0");

        RateLimiter foreign = engineOn(new ManualClock()).limiter("foreign", TENANT);
        RateLimiter local = engine.limiter("local", TENANT);
        assertRejected(
                () -> engine.<String>chain()
                        .layer(local, k -> k)
                        .layer(foreign, k -> k)
                        .build(),
                "layer 1",
                "foreign",
                "another engine");
    }

    @Test
    void missingLayerPartsAreIllegalArguments() {
        RateLimiter local = engine.limiter("local", TENANT);
        java.util.function.Function<String, String> noKey = null;

        assertRejected(() -> engine.<String>chain().layer(null, k -> k), "limiter", "null");
        assertRejected(() -> engine.<String>chain().layer(null, "all"), "limiter", "null");
        assertRejected(() -> engine.<String>chain().layer(local, noKey), "key", "null");
        assertRejected(() -> engine.<String>chain().layer(local, (String) null), "key", "null");
        assertRejected(() -> engine.<String>chain().layer(local, ""), "key", "empty");
        assertRejected(() -> new LimitChain.Layer<String>(null, k -> k), "limiter", "null");
    }
}
