package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Redis killed and restarted: outages, the unavailable gauge and degraded decisions by basis. */
class RedisOutageMetricsTest {
    private static final TokenBucket TEN_AN_HOUR = TokenBucket.of(10, Duration.ofHours(1));

    private RedisServer redis;
    private Sluice sluice;
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start();
        sluice = RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofMillis(200))
                .retryInterval(Duration.ofMillis(100))
                .build();
    }

    @AfterEach
    void stopRedis() {
        sluice.close();
        redis.close();
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    @Test
    void anOutageIsCountedOnceItsGaugeHoldsUntilRecoveryAndDegradedDecisionsCarryTheirBasis() {
        SluiceMetrics.bind(sluice, registry);
        RateLimiter share = sluice.limiter(
                "share",
                TEN_AN_HOUR,
                LimiterOptions.builder()
                        .whenUnavailable(WhenUnavailable.fallBack(0.2))
                        .build());
        RateLimiter closed = sluice.limiter("closed", TEN_AN_HOUR);
        share.tryAcquire("k");

        redis.kill();
        for (int i = 0; i < 3; i++) {
            share.tryAcquire("k");
            closed.tryAcquire("k");
        }

        assertThat(registry.get(MeterNames.LIMITER_UNAVAILABLE)
                        .tag("limiter", "share")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(count(MeterNames.LIMITER_OUTAGES, "limiter", "share")).isEqualTo(1);
        assertThat(count(MeterNames.LIMITER_OUTAGES, "limiter", "closed")).isEqualTo(1);
        assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", "share", "outcome", "allowed", "basis", "fallback"))
                .as("20% of 10")
                .isEqualTo(2);
        assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", "share", "outcome", "denied", "basis", "fallback"))
                .isEqualTo(1);
        assertThat(count(
                        MeterNames.LIMITER_DECISIONS,
                        "limiter",
                        "closed",
                        "outcome",
                        "denied",
                        "basis",
                        "unavailable_denied"))
                .isEqualTo(3);

        redis.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> share.tryAcquire("k").basis() == Decision.Basis.LIMIT);
        assertThat(registry.get(MeterNames.LIMITER_UNAVAILABLE)
                        .tag("limiter", "share")
                        .gauge()
                        .value())
                .isZero();
        assertThat(count(MeterNames.LIMITER_OUTAGES, "limiter", "share")).isEqualTo(1);
    }
}
