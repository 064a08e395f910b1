package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The script's protocol: arguments, replies, the clock, expiry, releases and the supported policies. */
class LimitScriptTest {
    private static final long START = SluiceClock.toEpochNanos(ManualClock.DEFAULT_START);

    private static LimitScriptRunner runner;

    @BeforeAll
    static void connect() {
        runner = new LimitScriptRunner();
    }

    @AfterAll
    static void disconnect() {
        runner.close();
    }

    @Test
    void shaIsWhatRedisNamesTheScript() {
        assertThat(runner.redis.scriptLoad(LimitScript.SOURCE)).isEqualTo(LimitScript.SHA);
    }

    @Test
    void argumentsFollowTheProtocol() {
        List<LimitScript.Layer> layers = List.of(
                new LimitScript.Layer("s1", "a1", TokenBucket.of(3, Duration.ofSeconds(1)), null),
                new LimitScript.Layer("s2", "a2", Gcra.of(7, Duration.ofSeconds(1), 5), null),
                new LimitScript.Layer("s3", "a3", FixedWindow.of(10, Duration.ofMinutes(1)), null),
                new LimitScript.Layer("s4", "a4", SlidingWindowCounter.of(11, Duration.ofSeconds(2)), null),
                new LimitScript.Layer("s5", "a5", SlidingWindowLog.of(12, Duration.ofSeconds(3)), null),
                new LimitScript.Layer("s6", "a6", ConcurrencyLimit.of(13, Duration.ofSeconds(4)), "id-1.x:y_z"));

        assertThat(LimitScript.keys(layers))
                .containsExactly("s1", "a1", "s2", "a2", "s3", "a3", "s4", "a4", "s5", "a5", "s6", "a6");
        assertThat(LimitScript.acquireArgs(layers, 2, START))
                .containsExactly(
                        "acquire",
                        Math.floorDiv(START, 1_000_000_000L) + " " + Math.floorMod(START, 1_000_000_000L),
                        "2",
                        "6",
                        "gcra",
                        "333333334",
                        "3",
                        "",
                        "gcra",
                        "142857143",
                        "5",
                        "",
                        "fixed",
                        "60000000000",
                        "10",
                        "",
                        "counter",
                        "2000000000",
                        "11",
                        "",
                        "log",
                        "3000000000",
                        "12",
                        "",
                        "leases",
                        "4000000000",
                        "13",
                        "id-1.x:y_z");
        assertThat(LimitScript.acquireArgs(layers.subList(0, 1), 1, LimitScript.REDIS_TIME)[1])
                .isEmpty();
        assertThat(LimitScript.releaseArgs("m", 5)).containsExactly("release", "0 5", "m");
        assertThat(LimitScript.releaseArgs("m", -1_500_000_000L)).containsExactly("release", "-2 500000000", "m");
        assertThat(LimitScript.releaseArgs("m", LimitScript.REDIS_TIME)).containsExactly("release", "", "m");
    }

    @Test
    void leaseIdsAreChecked() {
        LimitPolicy leases = ConcurrencyLimit.of(1, Duration.ofSeconds(1));
        assertThatThrownBy(() -> LimitScript.acquireArgs(List.of(new LimitScript.Layer("s", "a", leases, null)), 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease id");
        assertThatThrownBy(() -> LimitScript.acquireArgs(List.of(new LimitScript.Layer("s", "a", leases, "a|b")), 1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a|b");
    }

    @Test
    void parseReadsIntegersAndDecimalStrings() {
        LimitScript.Reply reply = LimitScript.parse(
                List.of(1_767_225_600L, 1L, 0L, 0L, "2305843009213693951", "2305843009213693951", ""), 1);

        assertThat(reply.nowNanos()).isEqualTo(1_767_225_600_000_000_001L);
        assertThat(reply.layers()[0])
                .isEqualTo(new LimitScript.Result(false, 0, Long.MAX_VALUE / 4, 4_073_068_609_213_693_952L, ""));
        assertThat(reply.allowed()).isFalse();
        assertThatThrownBy(() -> LimitScript.parse(List.of(1L, 1L), 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> LimitScript.parse(List.of("x", 1L, 1L, 1L, 0L, 1L, ""), 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("x");
    }

    static Stream<Arguments> policies() {
        return Stream.of(
                Arguments.of(TokenBucket.of(3, Duration.ofSeconds(1))),
                Arguments.of(FixedWindow.of(3, Duration.ofSeconds(1))),
                Arguments.of(SlidingWindowCounter.of(3, Duration.ofSeconds(1))),
                Arguments.of(SlidingWindowLog.of(3, Duration.ofSeconds(1))),
                Arguments.of(ConcurrencyLimit.of(3, Duration.ofSeconds(1))));
    }

    @ParameterizedTest
    @MethodSource("policies")
    void withoutATimeTheScriptDecidesOnRedisClockAndExpiresOnIt(LimitPolicy policy) {
        LimitScript.Layer layer = runner.layer("clock", policy.getClass().getSimpleName(), policy, leaseId(policy));
        long before = System.currentTimeMillis();
        LimitScript.Reply reply = runner.acquire(List.of(layer), 1, LimitScript.REDIS_TIME);
        long after = System.currentTimeMillis();

        assertThat(reply.nowNanos() / 1_000_000).isBetween(before - 1_000, after + 1_000);
        LimitScript.Result result = reply.layers()[0];
        assertThat(result.allowed()).isTrue();
        long nowMs = Math.floorDiv(reply.nowNanos(), 1_000_000);
        long ttl = Math.ceilDiv(result.resetAtNanos() - nowMs * 1_000_000, 1_000_000) + 1;
        assertThat(runner.redis.pttl(layer.stateKey())).isBetween(ttl - 1_000, ttl);
    }

    @ParameterizedTest
    @MethodSource("policies")
    void aDenialWritesNothing(LimitPolicy policy) {
        LimitScript.Layer layer = runner.layer("deny", policy.getClass().getSimpleName(), policy, leaseId(policy));
        assertThat(runner.acquire(List.of(layer), 2, START).allowed()).isTrue();
        List<String> before = runner.snapshot(List.of(layer));

        LimitScript.Reply denied = runner.acquire(List.of(layer), 2, START + 1);

        assertThat(denied.allowed()).isFalse();
        assertThat(denied.layers()[0].leaseMember()).isEmpty();
        assertThat(runner.snapshot(List.of(layer))).isEqualTo(before);
    }

    @Test
    void aTokenBucketIsOneStringKey() {
        TokenBucket bucket = TokenBucket.of(3, Duration.ofSeconds(1));
        LimitScript.Layer layer = runner.layer("layout", "k", bucket, null);

        runner.acquire(List.of(layer), 1, START);

        assertThat(runner.redis.get(layer.stateKey()))
                .isEqualTo(LimitScript.storedTime(START + 333_333_334) + "|333333334");
        assertThat(runner.redis.exists(layer.auxKey())).isZero();
    }

    @Test
    void aLeaseIsReleasedOnceAndNotAfterItExpires() {
        ConcurrencyLimit limit = ConcurrencyLimit.of(2, Duration.ofSeconds(1));
        LimitScript.Layer first = runner.layer("release", "k", limit, "first");
        LimitScript.Layer second = runner.layer("release", "k", limit, "second");
        String held = runner.acquire(List.of(first), 1, START).layers()[0].leaseMember();
        String other =
                runner.acquire(List.of(second), 1, START + 10).layers()[0].leaseMember();
        assertThat(held).isEqualTo(LimitScript.storedTime(START + 1_000_000_000) + "|first|1");

        assertThat(runner.release(first, held, START + 20)).isTrue();
        assertThat(runner.release(first, held, START + 30)).isFalse();
        assertThat(runner.acquire(List.of(first), 1, START + 40).layers()[0].remaining())
                .isZero();
        assertThat(runner.release(second, other, START + 1_000_000_010)).isFalse();
        assertThat(runner.release(second, "99999999999999999999|nobody|1", START))
                .isFalse();
    }

    @Test
    void releasingTheLastLiveLeaseDropsTheKeys() {
        ConcurrencyLimit limit = ConcurrencyLimit.of(2, Duration.ofSeconds(1));
        LimitScript.Layer layer = runner.layer("drop", "k", limit, "only");
        String held = runner.acquire(List.of(layer), 2, START).layers()[0].leaseMember();

        assertThat(runner.release(layer, held, START + 5)).isTrue();

        assertThat(runner.redis.exists(layer.stateKey(), layer.auxKey())).isZero();
    }

    @Test
    void unknownOperationsAndKindsFail() {
        LimitScript.Layer layer = runner.layer("bad", "k", TokenBucket.perSecond(1), null);
        assertThatThrownBy(() -> runner.redis.evalsha(
                        LimitScript.SHA,
                        io.lettuce.core.ScriptOutputType.MULTI,
                        LimitScript.keys(layer),
                        "frobnicate",
                        "0 1"))
                .hasMessageContaining("unknown operation frobnicate");
        assertThatThrownBy(() -> runner.redis.evalsha(
                        LimitScript.SHA,
                        io.lettuce.core.ScriptOutputType.MULTI,
                        LimitScript.keys(layer),
                        "acquire",
                        "1"))
                .hasMessageContaining("time must be");
        assertThatThrownBy(() -> runner.redis.evalsha(
                        LimitScript.SHA,
                        io.lettuce.core.ScriptOutputType.MULTI,
                        LimitScript.keys(layer),
                        "acquire",
                        "0 1",
                        "1",
                        "1",
                        "bucket",
                        "1",
                        "1",
                        ""))
                .hasMessageContaining("unknown policy kind bucket");
    }

    private static String leaseId(LimitPolicy policy) {
        return policy instanceof ConcurrencyLimit ? "lease-" + System.nanoTime() : null;
    }
}
