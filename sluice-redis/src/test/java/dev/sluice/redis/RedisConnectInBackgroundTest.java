package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
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
import dev.sluice.time.ManualClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An engine built with {@code connectInBackground(true)} while Redis is down (issue 22: an application must start
 * while Redis is down): it answers as in an outage until it connects, on the engine's clock, and then as an engine
 * built while Redis was up.
 */
@Tag("slow")
class RedisConnectInBackgroundTest {
    private static final Duration RETRY = Duration.ofSeconds(1);
    private static final TokenBucket TEN_AN_HOUR = TokenBucket.of(10, Duration.ofHours(1));

    private final ManualClock clock = new ManualClock();
    private RedisServer redis;

    @BeforeEach
    void startRedisAndKillIt() {
        redis = RedisServer.start();
        redis.kill();
    }

    @AfterEach
    void closeRedis() {
        redis.close();
    }

    /** An engine on the dead server, connecting in the background on the test's clock. */
    private Sluice buildWhileDown(String url) {
        return RedisSluice.builder()
                .url(url)
                .clock(clock)
                .retryInterval(RETRY)
                .commandTimeout(Duration.ofSeconds(5))
                .connectInBackground(true)
                .build();
    }

    private static RateLimiter limiter(Sluice sluice, String name, WhenUnavailable when, LimiterListener listener) {
        return sluice.limiter(
                name,
                TEN_AN_HOUR,
                LimiterOptions.builder()
                        .whenUnavailable(when)
                        .listener(listener)
                        .build());
    }

    /** Runs the attempt due now and waits until it failed and the next one is planned. */
    private void failAnAttempt() {
        assertThat(clock.pendingTasks()).as("an attempt is planned").isEqualTo(1);
        clock.advance(RETRY);
        await("the attempt failed, the next planned")
                .atMost(Duration.ofSeconds(20))
                .until(() -> clock.pendingTasks() == 1);
    }

    /** Starts Redis and runs attempts until {@code limiter} decides on Redis. */
    private void startRedisAndAwaitConnected(RateLimiter limiter) {
        redis.restart();
        await("the engine connected").atMost(Duration.ofSeconds(20)).until(() -> {
            clock.advance(RETRY);
            return limiter.peek("probe", 1).basis() == Basis.LIMIT;
        });
    }

    @Test
    void aFailOpenLimiterAllowsWhileRedisIsDownThenDecidesOnRedisOnceItIsUp() {
        try (CapturedLogs captured = new CapturedLogs();
                Sluice sluice = buildWhileDown(redis.uri())) {
            Heard heard = new Heard();
            RateLimiter open = limiter(sluice, "open", WhenUnavailable.failOpen(), heard);
            for (int i = 0; i < 20; i++) {
                assertThat(open.tryAcquire("k").basis()).isEqualTo(Basis.UNAVAILABLE_ALLOWED);
            }
            failAnAttempt();
            failAnAttempt();
            assertThat(open.tryAcquire("k").basis()).isEqualTo(Basis.UNAVAILABLE_ALLOWED);
            assertThat(heard.causes).as("told once, before the first attempt").hasSize(1);

            startRedisAndAwaitConnected(open);
            Decision onRedis = open.tryAcquire("k");
            assertThat(onRedis.basis()).isEqualTo(Basis.LIMIT);
            assertThat(onRedis.remaining()).as("Redis counted this one only").isEqualTo(9);
            assertThat(heard.recovered).isEqualTo(1);

            captured.assertNoStackTraceAboveDebug();
            assertThat(captured.of("RedisEngine", Level.WARNING))
                    .extracting(LogRecord::getMessage)
                    .singleElement()
                    .asString()
                    .contains("cannot connect to Redis (" + redis.uri() + ")")
                    .contains("tries to connect again every 1 s")
                    .contains("WhenUnavailable");
            assertThat(captured.of("RedisEngine", Level.INFO))
                    .extracting(LogRecord::getMessage)
                    .singleElement()
                    .asString()
                    .contains("connected to Redis (" + redis.uri() + ") after");
        }
    }

    @Test
    void everyPolicyAndChainAnswersAsInAnOutageUntilConnected() {
        try (Sluice sluice = buildWhileDown(redis.uri())) {
            Heard heard = new Heard();
            RateLimiter closed = limiter(sluice, "closed", WhenUnavailable.failClosed(), heard);
            RateLimiter share = sluice.limiter(
                    "share",
                    TEN_AN_HOUR,
                    LimiterOptions.builder()
                            .whenUnavailable(WhenUnavailable.fallBack(0.2))
                            .build());
            LimitChain<String> chain = sluice.<String>chain()
                    .layer(share, k -> k)
                    .layer(closed, k -> k)
                    .build();
            failAnAttempt();

            Decision denied = closed.tryAcquire("k");
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
            assertThat(denied.retryAfterNanos()).isBetween(1L, RETRY.toNanos());
            assertThat(heard.causes)
                    .singleElement()
                    .asString()
                    .contains("cannot connect to Redis (" + redis.uri() + ")");
            assertThat(closed.tryAcquireAsync("k", 1).join().basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
            assertThat(chain.tryAcquire("k").limiter()).isEqualTo("closed");

            assertThat(share.tryAcquire("k").basis()).isEqualTo(Basis.FALLBACK);
            assertThat(share.tryAcquire("k").allowed()).isTrue();
            assertThat(share.tryAcquire("k").allowed()).as("20% of 10 is 2").isFalse();

            startRedisAndAwaitConnected(closed);
            assertThat(chain.tryAcquire("k").basis()).isEqualTo(Basis.LIMIT);
            assertThat(share.tryAcquire("k").remaining())
                    .as("the share's permits stayed in this process")
                    .isEqualTo(8);
        }
    }

    @Test
    void aQueueIsRefusedWhileDownNamingTheUrlWithoutItsPasswordAndWorksOnceConnected() {
        String url = "redis://:s3cret@127.0.0.1:" + redis.port();
        try (Sluice sluice = buildWhileDown(url)) {
            String server = "redis://******@127.0.0.1:" + redis.port();
            assertThat(sluice.toString()).contains(server).doesNotContain("s3cret");
            assertThatThrownBy(() -> sluice.queue("jobs", Codec.utf8()))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageStartingWith("Redis (" + server + ") is not reachable yet")
                    .hasMessageNotContaining("s3cret");
            failAnAttempt();
            assertThatThrownBy(() -> sluice.queue("jobs", Codec.utf8()))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("is not reachable yet")
                    .hasMessageContaining("its last attempt failed: cannot connect to Redis")
                    .hasMessageNotContaining("s3cret");

            redis.restart();
            requirePassword("s3cret");
            await("the engine connected")
                    .atMost(Duration.ofSeconds(20))
                    .ignoreExceptionsInstanceOf(SluiceException.class)
                    .until(() -> {
                        clock.advance(RETRY);
                        return sluice.queue("jobs", Codec.utf8()) != null;
                    });
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            queue.add("job", "payload");
            assertThat(queue.counts().waiting()).isEqualTo(1);
        }
    }

    /** Not at the retry the outage planned: the engine is up once it connects. */
    @Test
    void limitersDecideOnRedisAsSoonAsTheEngineConnects() {
        try (Sluice sluice = buildWhileDown(redis.uri())) {
            RateLimiter closed = sluice.limiter("closed", TEN_AN_HOUR);
            assertThat(closed.tryAcquire("k").basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
            redis.restart();
            clock.runDue();
            await("the first attempt connected")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> closed.peek("k", 1).basis() == Basis.LIMIT);
        }
    }

    /** The system clock, as in production: the first attempt starts at once, the next ones every retry interval. */
    @Test
    void onTheSystemClockTheEngineConnectsByItselfOnceRedisIsUp() {
        try (Sluice sluice = RedisSluice.builder()
                .url(redis.uri())
                .retryInterval(Duration.ofMillis(100))
                .connectInBackground(true)
                .build()) {
            RateLimiter limiter = sluice.limiter("open", TEN_AN_HOUR);
            assertThat(limiter.tryAcquire("k").basis()).isEqualTo(Basis.UNAVAILABLE_DENIED);
            redis.restart();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> limiter.peek("k", 1).basis() == Basis.LIMIT);
        }
    }

    @Test
    void whenConnectedCompletesOnceAnAttemptSucceedsAndConnectFailureSaysWhyUntilThen() {
        try (Sluice sluice = buildWhileDown(redis.uri())) {
            CompletableFuture<Void> connected = RedisSluice.whenConnected(sluice);
            assertThat(RedisSluice.connectFailure(sluice))
                    .as("before any attempt")
                    .isEmpty();
            failAnAttempt();
            assertThat(connected).isNotDone();
            assertThat(RedisSluice.connectFailure(sluice))
                    .hasValueSatisfying(cause ->
                            assertThat(cause.getMessage()).contains("cannot connect to Redis (" + redis.uri() + ")"));
            RedisSluice.whenConnected(sluice).complete(null);
            assertThat(connected)
                    .as("a copy completed by the caller changes nothing")
                    .isNotDone();

            redis.restart();
            await("the engine connected").atMost(Duration.ofSeconds(20)).until(() -> {
                clock.advance(RETRY);
                return connected.isDone();
            });

            assertThat(connected).isCompleted();
            assertThat(RedisSluice.connectFailure(sluice)).isEmpty();
            assertThat(sluice.queue("jobs", Codec.utf8()).counts().waiting()).isZero();
        }
    }

    @Test
    void whenConnectedIsCompleteForAnEngineConnectedWhenBuiltAndFailsForOneClosedFirst() {
        redis.restart();
        try (Sluice connectedAtBuild = RedisSluice.connect(redis.uri())) {
            assertThat(RedisSluice.whenConnected(connectedAtBuild)).isCompleted();
            assertThat(RedisSluice.connectFailure(connectedAtBuild)).isEmpty();
        }
        redis.kill();
        Sluice closedFirst = buildWhileDown(redis.uri());
        CompletableFuture<Void> connected = RedisSluice.whenConnected(closedFirst);
        closedFirst.close();
        assertThat(connected)
                .failsWithin(Duration.ZERO)
                .withThrowableThat()
                .havingRootCause()
                .isInstanceOf(IllegalStateException.class)
                .withMessageContaining("closed before it connected to Redis (" + redis.uri() + ")");
        try (Sluice inMemory = Sluice.inMemory()) {
            assertThatThrownBy(() -> RedisSluice.whenConnected(inMemory))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("not an engine built by RedisSluice");
        }
    }

    @Test
    void closingWhileDownStopsTheAttemptsAndLeavesNoThread() {
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
        Sluice sluice = buildWhileDown(redis.uri());
        failAnAttempt();
        sluice.close();
        assertThat(clock.pendingTasks()).as("no attempt planned").isZero();
        await("the attempts' client threads stopped")
                .atMost(Duration.ofSeconds(10))
                .until(() -> Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.isAlive() && !before.contains(t))
                        .noneMatch(t ->
                                t.getName().startsWith("lettuce") || t.getName().startsWith("sluice")));

        redis.restart();
        clock.advance(RETRY.multipliedBy(5));
        assertThat(clientsOf(redis)).as("only the test's own connection").isEqualTo(1);
    }

    private void requirePassword(String password) {
        RedisClient admin = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            connection.sync().configSet("requirepass", password);
        } finally {
            admin.shutdown();
        }
    }

    private static long clientsOf(RedisServer redis) {
        RedisClient admin = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            return connection.sync().clientList().lines().count();
        } finally {
            admin.shutdown();
        }
    }

    /** The causes a limiter's listener heard of, and how often it heard Redis was back. */
    private static final class Heard implements LimiterListener {
        final List<String> causes = new CopyOnWriteArrayList<>();
        volatile int recovered;

        @Override
        public void onUnavailable(String limiter, Throwable cause) {
            causes.add(cause.getMessage());
        }

        @Override
        public void onRecovered(String limiter) {
            recovered++;
        }
    }
}
