package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** In memory, the clients a limiter tracks are bounded by its maxKeys, however many come. */
class ManyClientsTest extends EngineFixture {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return Sluice.inMemory(clock);
    }

    @Test
    void aMillionDistinctClientsAreTrackedWithinMaxKeys() {
        AtomicLong evicted = new AtomicLong();
        RateLimiter perClient = sluice.limiter(
                "clients",
                FixedWindow.of(10, Duration.ofSeconds(1)),
                LimiterOptions.builder()
                        .maxKeys(10_000)
                        .listener(new LimiterListener() {
                            @Override
                            public void onEvicted(String limiter, String key) {
                                evicted.incrementAndGet();
                            }
                        })
                        .build());
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .clientAddresses(ClientAddressResolver.builder()
                        .trustedProxies("10.0.0.1")
                        .build())
                .rule(IngressRule.named("api").limit(perClient).build())
                .build();
        Runtime runtime = Runtime.getRuntime();
        System.gc();
        long before = runtime.totalMemory() - runtime.freeMemory();

        int clients = 1_000_000;
        for (int i = 0; i < clients; i++) {
            String address = "198." + ((i >> 16) & 0xff) + "." + ((i >> 8) & 0xff) + "." + (i & 0xff);
            IngressDecision decision = ingress.check(IngressLimiterContract.request(
                    "GET", "/", "10.0.0.1", Map.of("X-Forwarded-For", List.of(address))));
            assertThat(decision.allowed()).isTrue();
            clock.advanceNanos(200_000); // 5,000 new clients a second: each one's window ends within maxKeys
        }

        System.gc();
        long after = runtime.totalMemory() - runtime.freeMemory();
        assertThat(evicted.get()).as("keys beyond maxKeys were dropped").isGreaterThanOrEqualTo(clients - 10_000);
        assertThat(after - before).as("heap held after a million clients").isLessThan(64L << 20);
    }
}
