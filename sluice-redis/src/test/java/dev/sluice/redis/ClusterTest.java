package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.testkit.redis.RedisCluster;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Redis engine on a Redis Cluster of 3 masters: limits spread over many slots, each key holding exactly its
 * limit; chains whose keys share a hash slot are one script, all or nothing; chains across slots are refused
 * before anything is taken.
 */
@Tag("slow")
class ClusterTest {
    private static final int KEYS = 300;
    private static final Pattern TAG = Pattern.compile("\\{([^}]*)}");
    private static final AtomicLong PREFIXES = new AtomicLong();

    private static RedisCluster cluster;

    private String prefix;
    private Sluice sluice;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void connect() {
        prefix = "cluster" + PREFIXES.incrementAndGet();
        sluice = RedisSluice.builder()
                .cluster(cluster.uris().toArray(String[]::new))
                .keyPrefix(prefix)
                .build();
    }

    @AfterEach
    void close() {
        if (sluice != null) {
            sluice.close();
        }
    }

    /** Every kind of policy, 5 permits that do not come back within the test. */
    static Stream<LimitPolicy> fiveForALongWhile() {
        return Stream.of(
                TokenBucket.of(5, Duration.ofDays(1)),
                Gcra.of(1, Duration.ofDays(1), 5),
                SlidingWindowLog.of(5, Duration.ofDays(1)),
                FixedWindow.of(5, windowClearOfItsEnd()),
                SlidingWindowCounter.of(5, windowClearOfItsEnd()),
                ConcurrencyLimit.of(5, Duration.ofHours(1)));
    }

    /**
     * A window of about three weeks (the Redis engine takes windows up to 2^52 ns, about 52 days, and a sliding
     * counter remembers two) whose current epoch-aligned window has more than an hour to run: no window ends
     * during the test.
     */
    static Duration windowClearOfItsEnd() {
        long now = SluiceClock.system().nanos();
        for (int days = 20; ; days++) {
            long window = Duration.ofDays(days).toNanos();
            if (window - Math.floorMod(now, window) > Duration.ofHours(1).toNanos()) {
                return Duration.ofDays(days);
            }
        }
    }

    @Test
    void aNewEnginesFirstCallToEachMasterIsDecidedByRedis() {
        // slots are split evenly in order: these three are well inside the first, second and third master's
        List<String> oneKeyPerMaster = List.of(
                keyInSlots(0, RedisCluster.SLOTS / 4),
                keyInSlots(RedisCluster.SLOTS * 5 / 12, RedisCluster.SLOTS * 7 / 12),
                keyInSlots(RedisCluster.SLOTS * 3 / 4, RedisCluster.SLOTS));
        List<Throwable> unavailable = new CopyOnWriteArrayList<>();
        LimiterListener listener = new LimiterListener() {
            @Override
            public void onUnavailable(String limiter, Throwable cause) {
                unavailable.add(cause);
            }
        };
        RateLimiter limiter = sluice.limiter(
                "first",
                TokenBucket.of(5, Duration.ofDays(1)),
                LimiterOptions.builder().listener(listener).build());

        for (String key : oneKeyPerMaster) {
            Decision first = limiter.tryAcquire(key);
            assertThat(first.degraded())
                    .as(
                            "the first call for key %s (slot %d): %s; Redis was unavailable because of %s",
                            key, SlotHash.getSlot(key), first, unavailable)
                    .isFalse();
            assertThat(first.allowed()).as("%s", first).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fiveForALongWhile")
    void keysSpreadOverEveryMasterEachGrantExactlyTheirLimit(LimitPolicy policy) {
        NamedLimiter limiter = ContractSupport.limiterOf(sluice, "spread", policy);
        List<String> keys = keys("k", KEYS);

        for (String key : keys) {
            for (int taken = 1; taken <= 5; taken++) {
                Decision decision = limiter.tryAcquire(key);
                assertThat(decision.allowed())
                        .as("permit %d of key %s: %s", taken, key, decision)
                        .isTrue();
                assertThat(decision.remaining())
                        .as("remaining after %d of key %s", taken, key)
                        .isEqualTo(5 - taken);
                assertThat(decision.degraded()).isFalse();
            }
            Decision sixth = limiter.tryAcquire(key);
            assertThat(sixth.allowed()).as("permit 6 of key %s: %s", key, sixth).isFalse();
            assertThat(sixth.degraded()).isFalse();
        }
        // denials took nothing, and no key shares another's state
        for (String key : keys) {
            assertThat(limiter.tryAcquire(key).allowed()).as("key %s", key).isFalse();
        }

        Map<String, Set<String>> keysByNode = limiterKeysByNode("spread");
        Set<String> everywhere = new HashSet<>();
        keysByNode.forEach((node, held) -> {
            assertThat(held).as("keys of node %s", node).hasSizeGreaterThan(KEYS / 10);
            assertThat(everywhere).as("keys also on another node than %s", node).doesNotContainAnyElementsOf(held);
            everywhere.addAll(held);
        });
        assertThat(keysByNode).hasSize(3);
        assertThat(everywhere).containsExactlyInAnyOrderElementsOf(keys);
    }

    @Test
    void aChainOfKeysSharingAHashTagIsAllOrNothing() {
        RateLimiter tenant = sluice.limiter("tenant", TokenBucket.of(5, Duration.ofDays(1)));
        RateLimiter search = sluice.limiter("search", SlidingWindowLog.of(3, Duration.ofDays(1)));
        LimitChain<String> chain = sluice.<String>chain()
                .layer(tenant, t -> "{" + t + "}")
                // the escaped part after the tag (colons, %) must not move the key out of the tag's slot
                .layer(search, t -> "{" + t + "}:search:50%")
                .build();
        List<String> tenants = keys("t", 30);

        for (String t : tenants) {
            for (int i = 0; i < 3; i++) {
                assertThat(chain.tryAcquire(t).allowed())
                        .as("chain call %d of %s", i + 1, t)
                        .isTrue();
            }
            Decision denied = chain.tryAcquire(t);
            assertThat(denied.allowed())
                    .as("4th chain call of %s: %s", t, denied)
                    .isFalse();
            assertThat(denied.limiter()).isEqualTo("search");
            assertThat(denied.degraded()).isFalse();
        }
        // the denials took nothing from the tenant layer: it has exactly 5 - 3 left
        for (String t : tenants) {
            assertThat(grantedInARow(tenant, "{" + t + "}")).as("tenant %s", t).isEqualTo(2);
        }
        assertThat(limiterKeysByNode("search").values())
                .as("the tenants whose chains ran on each master")
                .hasSize(3)
                .allSatisfy(held -> assertThat(held).isNotEmpty());
    }

    @Test
    void aChainOfOneKeyUnderTwoLimitersIsAllOrNothing() {
        RateLimiter outer = sluice.limiter("outer", Gcra.of(1, Duration.ofDays(1), 4));
        ConcurrencyLimiter leases = sluice.concurrencyLimiter("inner", ConcurrencyLimit.of(2, Duration.ofHours(1)));
        LimitChain<String> chain = sluice.<String>chain()
                .layer(outer, key -> key)
                .layer(leases, key -> key)
                .build();

        for (String key : keys("same", 30)) {
            Decision first = chain.tryAcquire(key);
            Decision second = chain.tryAcquire(key);
            Decision third = chain.tryAcquire(key);
            assertThat(first.allowed()).as("%s: %s", key, first).isTrue();
            assertThat(second.allowed()).as("%s: %s", key, second).isTrue();
            assertThat(third.allowed()).as("%s: %s", key, third).isFalse();
            assertThat(third.limiter()).isEqualTo("inner");

            assertThat(first.release()).as("releasing the chain's lease").isTrue();
            assertThat(chain.tryAcquire(key).allowed())
                    .as("%s: the outer layer has 4 - 2 permits, the inner one a free lease", key)
                    .isTrue();
            assertThat(grantedInARow(outer, key))
                    .as("%s: what the outer layer has left after 3 grants (the denial took nothing)", key)
                    .isEqualTo(1);
        }
    }

    @Test
    void aChainAcrossSlotsIsRefusedNamingTheSlotsAndTakesNothing() throws InterruptedException {
        RateLimiter tenant = sluice.limiter("tenant", TokenBucket.of(5, Duration.ofDays(1)));
        RateLimiter global = sluice.limiter("global", FixedWindow.of(3, windowClearOfItsEnd()));
        LimitChain<String> chain = sluice.<String>chain()
                .layer(tenant, t -> t)
                .layer(global, "all")
                .build();
        int tenantSlot = SlotHash.getSlot("t1");
        int globalSlot = SlotHash.getSlot("all");
        assertThat(tenantSlot).as("the keys' slots").isNotEqualTo(globalSlot);

        assertThatThrownBy(() -> chain.tryAcquire("t1"))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(refused -> assertThat(refused.getMessage())
                        .containsPattern("\\bslot " + tenantSlot + "\\b")
                        .containsPattern("\\bslot " + globalSlot + "\\b")
                        .containsPattern("'\\{[^}]+}")
                        .contains("hash tag"));
        assertThatThrownBy(() -> chain.acquire("t1", 1, Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> chain.tryAcquire("t1", 2)).isInstanceOf(IllegalArgumentException.class);

        assertThat(grantedInARow(tenant, "t1"))
                .as("the tenant layer, after the refused calls")
                .isEqualTo(5);
        assertThat(grantedInARow(global, "all"))
                .as("the global layer, after the refused calls")
                .isEqualTo(3);
    }

    @Test
    void anApplicationsClusterClientIsUsedAndLeftOpen() {
        List<String> keys = keys("app", 60);
        RedisClusterClient client = RedisClusterClient.create(
                cluster.uris().stream().map(RedisURI::create).toList());
        try {
            Sluice onClient =
                    RedisSluice.builder().client(client).keyPrefix(prefix).build();
            try {
                RateLimiter viaClient = onClient.limiter("shared", TokenBucket.of(5, Duration.ofDays(1)));
                for (String key : keys) {
                    assertThat(viaClient.tryAcquire(key, 2).allowed())
                            .as("key %s", key)
                            .isTrue();
                    assertThat(grantedInARow(viaClient, key))
                            .as("key %s, after 2 of 5", key)
                            .isEqualTo(3);
                }
            } finally {
                onClient.close();
            }
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().ping())
                        .as("the application's client after the engine closed")
                        .isEqualTo("PONG");
            }
        } finally {
            client.shutdown();
        }
        assertThat(limiterKeysByNode("shared").values())
                .as("the keys on each master")
                .hasSize(3)
                .allSatisfy(held -> assertThat(held).isNotEmpty());

        // the same limits as an engine on the cluster's URLs sees them
        RateLimiter viaUrls = sluice.limiter("shared", TokenBucket.of(5, Duration.ofDays(1)));
        for (String key : keys) {
            assertThat(grantedInARow(viaUrls, key))
                    .as("key %s, drained through the other engine", key)
                    .isZero();
        }
    }

    /** How many single permits {@code limiter} grants {@code key} before the first denial. */
    private static int grantedInARow(RateLimiter limiter, String key) {
        int granted = 0;
        while (granted <= 1_000) {
            Decision decision = limiter.tryAcquire(key);
            assertThat(decision.degraded()).as("%s: %s", key, decision).isFalse();
            if (!decision.allowed()) {
                return granted;
            }
            granted++;
        }
        throw new AssertionError("key " + key + " of " + limiter + " granted more than 1,000 permits in a row");
    }

    /** A key whose slot is at least {@code from} and below {@code to}. */
    private static String keyInSlots(int from, int to) {
        for (int i = 0; ; i++) {
            int slot = SlotHash.getSlot("key" + i);
            if (slot >= from && slot < to) {
                return "key" + i;
            }
        }
    }

    private static List<String> keys(String start, int count) {
        return IntStream.range(0, count).mapToObj(i -> start + i).toList();
    }

    /** Per node, the limiter keys (the part in braces) whose state is kept there. */
    private Map<String, Set<String>> limiterKeysByNode(String limiter) {
        Map<String, Set<String>> byNode = new LinkedHashMap<>();
        for (String uri : cluster.uris()) {
            RedisClient node = RedisClient.create(uri);
            try (StatefulRedisConnection<String, String> connection = node.connect()) {
                Set<String> held = new HashSet<>();
                for (String stored : connection.sync().keys(prefix + ":" + limiter + ":*")) {
                    Matcher tag = TAG.matcher(stored);
                    assertThat(tag.find()).as("a hash tag in %s", stored).isTrue();
                    held.add(tag.group(1));
                }
                byNode.put(uri, held);
            } finally {
                node.shutdown();
            }
        }
        return byNode;
    }
}
