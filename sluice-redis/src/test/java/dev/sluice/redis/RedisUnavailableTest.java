package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.EngineListener;
import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.Decision.Basis;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Redis killed, restarted or stalled mid-run: each failure policy does what it promises, and recovers. */
@Tag("slow")
class RedisUnavailableTest {
    private static final Duration TIMEOUT = Duration.ofMillis(200);
    private static final Duration RETRY = Duration.ofMillis(100);
    private static final TokenBucket TEN_AN_HOUR = TokenBucket.of(10, Duration.ofHours(1));

    private RedisServer redis;
    private Sluice sluice;
    private final Events events = new Events();

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start();
        sluice = RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(TIMEOUT)
                .retryInterval(RETRY)
                .build();
    }

    @AfterEach
    void stopRedis() {
        sluice.close();
        redis.close();
    }

    private RateLimiter limiter(String name, WhenUnavailable whenUnavailable) {
        return sluice.limiter(
                name,
                TEN_AN_HOUR,
                LimiterOptions.builder()
                        .listener(events)
                        .whenUnavailable(whenUnavailable)
                        .build());
    }

    @Test
    void failClosedDeniesWithATypedReasonAndRecoversByItself() {
        RateLimiter limiter = limiter("closed", WhenUnavailable.failClosed());
        assertThat(limiter.tryAcquire("k").basis()).isEqualTo(Basis.LIMIT);

        redis.kill();
        for (int i = 0; i < 5; i++) {
            Decision decision = limiter.tryAcquire("k");
            assertThat(decision.allowed()).isFalse();
            assertThat(decision.basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
            assertThat(decision.degraded()).isTrue();
            assertThat(decision.retryAfterNanos()).isBetween(1L, RETRY.toNanos());
        }
        assertThat(events.named("unavailable:closed")).hasSize(1);

        redis.restart();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> limiter.tryAcquire("k").basis() == Basis.LIMIT);
        assertThat(events.named("recovered:closed")).hasSize(1);
        assertThat(events.named("unavailable:closed")).hasSize(1);
    }

    @Test
    void failOpenAllowsEveryRequestWhileRedisIsDown() {
        RateLimiter limiter = limiter("open", WhenUnavailable.failOpen());
        redis.kill();
        for (int i = 0; i < 20; i++) {
            Decision decision = limiter.tryAcquire("k");
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.basis()).isEqualTo(Basis.UNAVAILABLE_ALLOWED);
        }
        assertThat(limiter.tryConsume("k")).isTrue();
        assertThat(events.named("unavailable:open")).hasSize(1);
    }

    @Test
    void fallBackHoldsItsShareOfTheLimitAndStartsAfreshEachOutage() {
        RateLimiter limiter = limiter("share", WhenUnavailable.fallBack(0.3));
        redis.kill();
        assertThat(grantsInARow(limiter, Basis.FALLBACK)).as("30% of 10").isEqualTo(3);

        redis.restart();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> limiter.tryAcquire("k").basis() == Basis.LIMIT);
        assertThat(grantsInARow(limiter, Basis.LIMIT))
                .as("the restarted Redis kept nothing; one was taken")
                .isEqualTo(9);

        redis.kill();
        assertThat(grantsInARow(limiter, Basis.FALLBACK))
                .as("the share is full again in a new outage")
                .isEqualTo(3);
        assertThat(events.named("unavailable:share")).hasSize(2);
        assertThat(events.named("recovered:share")).hasSize(1);
    }

    @Test
    void anEngineListenerHearsEachLimitersOutageAndRecoveryAndItsDegradedDecisions() {
        Events engineWide = new Events();
        List<Basis> bases = new CopyOnWriteArrayList<>();
        sluice.addListener(new EngineListener() {
            @Override
            public void onUnavailable(String limiter, Throwable cause) {
                engineWide.onUnavailable(limiter, cause);
            }

            @Override
            public void onRecovered(String limiter) {
                engineWide.onRecovered(limiter);
            }

            @Override
            public void onAllowed(String limiter, String key, long permits, Decision decision) {
                bases.add(decision.basis());
            }

            @Override
            public void onDenied(String limiter, String key, long permits, Decision decision) {
                bases.add(decision.basis());
            }
        });
        RateLimiter share = sluice.limiter(
                "share",
                TEN_AN_HOUR,
                LimiterOptions.builder()
                        .whenUnavailable(WhenUnavailable.fallBack(0.1))
                        .build());
        RateLimiter closed = sluice.limiter("closed", TEN_AN_HOUR);

        redis.kill();
        share.tryAcquire("k");
        share.tryAcquire("k");
        closed.tryAcquire("k");
        redis.restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> share.tryAcquire("k").basis() == Basis.LIMIT);

        assertThat(engineWide.named("unavailable:share")).hasSize(1);
        assertThat(engineWide.named("unavailable:closed")).hasSize(1);
        assertThat(engineWide.named("recovered:share")).hasSize(1);
        assertThat(bases.subList(0, 3)).containsExactly(Basis.FALLBACK, Basis.FALLBACK, Basis.UNAVAILABLE_DENIED);
        assertThat(bases).last().isEqualTo(Basis.LIMIT);
    }

    /** Grants in a row for key "k" until the first denial, every decision on {@code basis}. */
    private static int grantsInARow(RateLimiter limiter, Basis basis) {
        int granted = 0;
        while (true) {
            Decision decision = limiter.tryAcquire("k");
            assertThat(decision.basis()).isEqualTo(basis);
            if (decision.denied()) {
                return granted;
            }
            granted++;
            assertThat(granted).as("granted more than the limit").isLessThanOrEqualTo(10);
        }
    }

    @Test
    void aStalledRedisNeverHoldsACallerBeyondTheCommandTimeout() throws Exception {
        RateLimiter limiter = limiter("stalled", WhenUnavailable.failClosed());
        assertThat(limiter.tryAcquire("k").basis()).isEqualTo(Basis.LIMIT);
        RedisClient admin = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            connection.sync().clientPause(3_000);
            long start = System.nanoTime();
            Decision decision = limiter.tryAcquire("k");
            long took = System.nanoTime() - start;
            assertThat(decision.basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
            assertThat(Duration.ofNanos(took))
                    .as("bounded by the 200 ms command timeout, whatever the machine's load")
                    .isLessThan(Duration.ofMillis(2_000));
        } finally {
            admin.shutdown();
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> limiter.tryAcquire("k").basis() == Basis.LIMIT);
    }

    /**
     * A queue's calls wait for Redis's reply without a deadline of their own (the client fails a command after the
     * command timeout): a virtual thread, as a worker's slot is, still gets the failure within about that time.
     */
    @Test
    void aStalledRedisFailsAQueueCallOfAVirtualThreadWithinTheCommandTimeout() throws Exception {
        JobQueue<String> queue = sluice.queue("stalled", Codec.utf8());
        queue.add("job", "before");
        RedisClient admin = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            connection.sync().clientPause(5_000);
            CompletableFuture<Duration> failedAfter = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                long start = System.nanoTime();
                try {
                    queue.counts();
                    failedAfter.completeExceptionally(new AssertionError("counts() answered while Redis was paused"));
                } catch (SluiceException e) {
                    assertThat(e).hasMessageContaining("did not answer within 200 ms");
                    failedAfter.complete(Duration.ofNanos(System.nanoTime() - start));
                } catch (Throwable e) {
                    failedAfter.completeExceptionally(e);
                }
            });
            assertThat(failedAfter)
                    .succeedsWithin(Duration.ofSeconds(10))
                    .as("bounded by the 200 ms command timeout, not the 5 s pause")
                    .satisfies(took -> assertThat(took).isLessThan(Duration.ofMillis(2_000)));
        } finally {
            admin.shutdown();
        }
    }

    /** The timer that fails the engine's late commands is the engine's own, and stops with it. */
    @Test
    void theEnginesTimeoutThreadStopsWithTheEngine() {
        sluice.limiter("warm", TEN_AN_HOUR).tryAcquire("k");
        assertThat(timeoutThreads()).as("the engine's timer runs").isNotEmpty();
        sluice.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> timeoutThreads().isEmpty());
    }

    private static List<Thread> timeoutThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("sluice-redis-timeouts"))
                .toList();
    }

    /**
     * Regression: acquireAsync waited for Redis on the caller's thread, up to the command timeout. Now every
     * asynchronous call returns at once while Redis is stalled: a call that waited for the 2 s timeout would
     * return a future already complete.
     */
    @Test
    void asyncCallsReturnAtOnceWhileRedisStallsAndCompleteWithThePolicysAnswer() {
        try (Sluice patient = RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofSeconds(2))
                .retryInterval(RETRY)
                .build()) {
            RateLimiter limiter = patient.limiter(
                    "stalled",
                    TEN_AN_HOUR,
                    LimiterOptions.builder()
                            .whenUnavailable(WhenUnavailable.failClosed())
                            .build());
            LimitChain<String> chain =
                    patient.<String>chain().layer(limiter, t -> t).build();
            assertThat(limiter.tryAcquire("k").basis()).isEqualTo(Basis.LIMIT);
            RedisClient admin = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                connection.sync().clientPause(6_000);

                CompletableFuture<Decision> tried = limiter.tryAcquireAsync("k", 1);
                assertThat(tried)
                        .as("tryAcquireAsync returned before Redis answered")
                        .isNotDone();
                CompletableFuture<Decision> waited = limiter.acquireAsync("k", 1, Duration.ofSeconds(1));
                assertThat(waited)
                        .as("acquireAsync returned before Redis answered")
                        .isNotDone();
                CompletableFuture<Decision> chained = chain.tryAcquireAsync("k", 1);
                assertThat(chained)
                        .as("a chain's tryAcquireAsync returned before Redis answered")
                        .isNotDone();

                for (CompletableFuture<Decision> future : List.of(tried, waited, chained)) {
                    assertThat(future)
                            .succeedsWithin(Duration.ofSeconds(10))
                            .extracting(Decision::basis)
                            .isEqualTo(Basis.UNAVAILABLE_DENIED);
                }
            } finally {
                admin.shutdown();
            }
        }
    }

    @Test
    void aChainWhileRedisIsDownDeniesIfAnyLayerFailsClosedAndOtherwiseUsesTheShares() {
        RateLimiter open = limiter("c-open", WhenUnavailable.failOpen());
        RateLimiter share = limiter("c-share", WhenUnavailable.fallBack(0.2));
        RateLimiter closed = limiter("c-closed", WhenUnavailable.failClosed());
        LimitChain<String> sharing =
                sluice.<String>chain().layer(open, k -> k).layer(share, k -> k).build();
        LimitChain<String> strict = sluice.<String>chain()
                .layer(share, k -> k)
                .layer(closed, k -> k)
                .build();
        redis.kill();

        Decision denied = strict.tryAcquire("k");
        assertThat(denied.basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
        assertThat(denied.limiter()).isEqualTo("c-closed");

        assertThat(sharing.tryAcquire("k").basis()).isEqualTo(Basis.FALLBACK);
        assertThat(sharing.tryAcquire("k").allowed()).isTrue();
        Decision third = sharing.tryAcquire("k");
        assertThat(third.allowed()).as("20% of 10 is 2").isFalse();
        assertThat(third.limiter()).isEqualTo("c-share");
    }

    @Test
    void releasingALeaseWhileRedisIsDownReturnsFalseWithoutThrowing() {
        ConcurrencyLimiter limiter = sluice.concurrencyLimiter(
                "leases",
                ConcurrencyLimit.of(2, Duration.ofMillis(300)),
                LimiterOptions.builder()
                        .whenUnavailable(WhenUnavailable.failClosed())
                        .build());
        Decision held = limiter.tryAcquire("k");
        assertThat(held.allowed()).isTrue();
        redis.kill();
        assertThat(held.release()).isFalse();
    }

    /** What the listeners heard, as "event:limiter" strings. */
    private static final class Events implements LimiterListener {
        private final List<String> heard = new CopyOnWriteArrayList<>();

        @Override
        public void onUnavailable(String limiter, Throwable cause) {
            assertThat(cause).isNotNull();
            heard.add("unavailable:" + limiter);
        }

        @Override
        public void onRecovered(String limiter) {
            heard.add("recovered:" + limiter);
        }

        List<String> named(String event) {
            return heard.stream().filter(event::equals).toList();
        }
    }
}
