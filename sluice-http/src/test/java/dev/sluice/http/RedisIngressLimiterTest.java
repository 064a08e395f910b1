package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.http.IngressDecision.Outcome;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.redis.HttpTestEngines;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisIngressLimiterTest extends IngressLimiterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return HttpTestEngines.on(clock);
    }

    @Test
    void aFailClosedLimitAnswers503WithRetryAfterWhileRedisIsUnreachable() {
        try (RedisServer server = RedisServer.start();
                Sluice down = RedisSluice.builder()
                        .url(server.uri())
                        .commandTimeout(Duration.ofMillis(300))
                        .build()) {
            server.kill();
            IngressLimiter ingress = IngressLimiter.builder(down)
                    .rule(IngressRule.named("closed")
                            .paths("/closed")
                            .limit(down.limiter("closed", FixedWindow.of(5, Duration.ofMinutes(1))))
                            .build())
                    .rule(IngressRule.named("open")
                            .limit(down.limiter(
                                    "open",
                                    FixedWindow.of(5, Duration.ofMinutes(1)),
                                    LimiterOptions.builder()
                                            .whenUnavailable(WhenUnavailable.failOpen())
                                            .build()))
                            .build())
                    .build();

            IngressDecision closed = ingress.check(get("/closed", "203.0.113.9"));
            assertThat(closed.outcome()).isEqualTo(Outcome.UNAVAILABLE);
            assertThat(closed.status()).isEqualTo(503);
            assertThat(Long.parseLong(closed.headers().get("Retry-After"))).isPositive();
            assertThat(closed.headers()).doesNotContainKey("RateLimit");
            assertThat(closed.problem()).contains("\"status\":503").contains("cannot be checked now");

            IngressDecision open = ingress.check(get("/other", "203.0.113.9"));
            assertThat(open.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(open.headers()).containsKey("RateLimit-Policy").doesNotContainKey("RateLimit");
        }
    }
}
