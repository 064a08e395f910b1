package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the engine leaves in Redis, on Redis's own clock: state that expires by itself, and scripts it reloads. */
class RedisStateTest {
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> admin;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(RedisServer.shared().uri());
        admin = client.connect();
    }

    @AfterAll
    static void disconnect() {
        admin.close();
        client.shutdown();
    }

    @Test
    void stateExpiresOnceEveryKeyIsBackAtItsFullLimit() {
        RedisCommands<String, String> redis = admin.sync();
        try (Sluice sluice =
                RedisSluice.builder().client(client).keyPrefix("expiry").build()) {
            List<LimitPolicy> policies = List.of(
                    TokenBucket.of(2, Duration.ofMillis(300)),
                    FixedWindow.of(2, Duration.ofMillis(300)),
                    SlidingWindowCounter.of(2, Duration.ofMillis(300)),
                    SlidingWindowLog.of(2, Duration.ofMillis(300)),
                    ConcurrencyLimit.of(2, Duration.ofMillis(300)));
            for (LimitPolicy policy : policies) {
                NamedLimiter limiter = ContractSupport.limiterOf(sluice, "p" + policies.indexOf(policy), policy);
                assertThat(limiter.tryAcquire("k").allowed())
                        .as(policy.toString())
                        .isTrue();
            }
            List<String> written = redis.keys("expiry:*");
            assertThat(written).as("every limiter wrote its state").hasSizeGreaterThanOrEqualTo(policies.size());
            for (String key : written) {
                // -2: gone already (a fixed window's key lives until its window ends, which may be at once), 0: less
                // than a millisecond left; -1, a key without expiry, is what this test is about
                long ttl = redis.pttl(key);
                assertThat(ttl == -2 || (ttl >= 0 && ttl <= 1_000))
                        .as("TTL of " + key + " is " + ttl + " ms: expected 0 to 1,000, or gone (-2)")
                        .isTrue();
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> redis.keys("expiry:*").isEmpty());
        }
    }

    @Test
    void scriptsLostByRedisAreSentAgainWithinTheSameCall() throws Exception {
        try (Sluice sluice =
                RedisSluice.builder().client(client).keyPrefix("noscript").build()) {
            RateLimiter limiter = sluice.limiter("flushed", TokenBucket.of(3, Duration.ofMinutes(1)));
            assertThat(limiter.tryAcquire("k").remaining()).isEqualTo(2);

            admin.sync().scriptFlush();

            Decision decision = limiter.tryAcquire("k");
            assertThat(decision.basis()).isEqualTo(Decision.Basis.LIMIT);
            assertThat(decision.remaining())
                    .as("the state survived; only the script was lost")
                    .isEqualTo(1);

            admin.sync().scriptFlush();

            Decision answered = limiter.tryAcquireAsync("k", 1).get(10, TimeUnit.SECONDS);
            assertThat(answered.basis())
                    .as("an asynchronous call resends it too")
                    .isEqualTo(Decision.Basis.LIMIT);
            assertThat(answered.remaining()).isZero();
        }
    }
}
