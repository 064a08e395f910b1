package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * A simulated downstream HTTP API (a payment provider, say) that the workers call once per job. It lives
 * in an engine of its own, as the partner's servers would: its limits are not ours, and our side learns of
 * them only through its answers. Pushed past its limit per tenant (or in all), it answers 429 with an exact
 * Retry-After; now and then it fails with a 503 that a retry cures. Thread-safe.
 */
final class PartnerApi implements AutoCloseable {
    static final String TENANT_LIMITER = "api-tenant";
    static final String GLOBAL_LIMITER = "api-global";

    /** One answer: 200, 429 (with {@code retryAfter}, and whether the global limit said no) or 503. */
    record Response(int status, Duration retryAfter, boolean globalLimit) {
        static final Response OK = new Response(200, Duration.ZERO, false);
        static final Response UNAVAILABLE = new Response(503, Duration.ZERO, false);
    }

    private final Sluice partner;
    private final RateLimiter global;
    private final LimitChain<String> limits;
    private final double failureRate;
    private final SluiceClock clock;
    final LongAdder tooManyRequests = new LongAdder();
    final LongAdder global429 = new LongAdder();
    final LongAdder unavailable = new LongAdder();
    final LongAdder ok = new LongAdder();

    /**
     * @param perTenant the limit the partner applies to each tenant's calls
     * @param global the limit the partner applies to all our calls together
     * @param failureRate the share of admitted calls that fail with a 503
     */
    PartnerApi(RatePolicy perTenant, RatePolicy global, double failureRate) {
        this.partner = Sluice.inMemory();
        this.clock = partner.clock();
        this.global = partner.limiter(GLOBAL_LIMITER, global);
        this.limits = partner.<String>chain()
                .layer(partner.limiter(TENANT_LIMITER, perTenant), tenant -> tenant)
                .layer(this.global, "all")
                .build();
        this.failureRate = failureRate;
    }

    /** Calls the API for {@code tenant}; blocks for the call's latency (virtual threads make that cheap). */
    Response call(String tenant) throws InterruptedException {
        Decision decision = limits.tryAcquire(tenant);
        if (decision.denied()) {
            // A 429 comes back at once. Retry-After in whole milliseconds, rounded up so it is never early.
            tooManyRequests.increment();
            if (decision.limiter().equals(GLOBAL_LIMITER)) {
                global429.increment();
            }
            long millis = Math.ceilDiv(decision.retryAfterNanos(), 1_000_000L);
            return new Response(
                    429, Duration.ofMillis(millis), decision.limiter().equals(GLOBAL_LIMITER));
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        // 20 to 60 ms, and one call in a hundred takes a quarter of a second.
        long latencyMillis = random.nextInt(100) == 0 ? 250 : 20 + random.nextInt(41);
        clock.sleep(Duration.ofMillis(latencyMillis).toNanos());
        if (random.nextDouble() < failureRate) {
            unavailable.increment();
            return Response.UNAVAILABLE;
        }
        ok.increment();
        return Response.OK;
    }

    /** The partner's capacity for all our calls together changes to {@code perSecond} (a bucket of one second). */
    void globalPerSecond(long perSecond) {
        global.setPolicy(TokenBucket.perSecond(perSecond));
    }

    @Override
    public void close() {
        partner.close();
    }
}
