package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pieces of {@link RedisLimiterBench} count what they claim to; nothing here is timed. */
class RedisBenchHarnessTest {
    private static RedisServer redis;
    private static RedisClient client;
    private static RedisBenchCommands sent;
    private static RedisBenchAdmin admin;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        sent = new RedisBenchCommands();
        client = RedisClient.create(redis.uri());
        client.addListener(sent);
        admin = new RedisBenchAdmin(redis.uri());
    }

    @AfterAll
    static void stop() {
        admin.close();
        client.shutdown();
        redis.close();
    }

    @Test
    void rawEvalshaIsOneCommandPerCall() throws Exception {
        try (RedisBenchRaw raw = new RedisBenchRaw(client)) {
            RedisBenchContender.Decider decider = raw.decider("t", new String[] {"a", "b", "c"});
            Map<String, Long> before = sent.sent();

            for (int i = 0; i < 30; i++) {
                assertThat(decider.decide(i % 3)).isTrue();
            }

            assertThat(RedisBenchCommands.difference(sent.sent(), before)).isEqualTo(Map.of("EVALSHA", 30L));
        }
    }

    @Test
    void floorIsOneEvalshaPerCallAndLeavesEachKeyItWroteWithATtl() throws Exception {
        try (RedisBenchRaw floor = RedisBenchRaw.floor(client);
                StatefulRedisConnection<String, String> reader = client.connect()) {
            assertThat(floor.id()).isEqualTo(RedisLimiterBench.FLOOR);
            RedisBenchContender.Decider decider = floor.decider("t", new String[] {"a", "b", "c"});
            Map<String, Long> before = sent.sent();

            for (int i = 0; i < 30; i++) {
                assertThat(decider.decide(i % 3)).isTrue();
            }

            assertThat(RedisBenchCommands.difference(sent.sent(), before)).isEqualTo(Map.of("EVALSHA", 30L));
            assertThat(admin.scan("floor:t:*")).containsExactlyInAnyOrder("floor:t:a", "floor:t:b", "floor:t:c");
            for (String key : List.of("floor:t:a", "floor:t:b", "floor:t:c")) {
                assertThat(admin.type(key)).isEqualTo("string");
                assertThat(admin.pttl(key)).isPositive().isLessThanOrEqualTo(RedisBenchRaw.FLOOR_TTL_MILLIS);
                // what it wrote came from the server's clock: seconds then microseconds, digits only
                assertThat(reader.sync().get(key)).matches("[0-9]{11,}");
            }
        }
    }

    @Test
    void sluiceIsOneEvalshaPerDecision() throws Exception {
        try (RedisBenchSluice sluice = new RedisBenchSluice(client, "bench-test", RedisLimiterBench.policy())) {
            RedisBenchContender.Decider decider = sluice.decider("t", new String[] {"a", "b"});
            // on a server that has not seen the script yet, the first call also sends it whole (EVAL)
            assertThat(decider.decide(0)).isTrue();
            Map<String, Long> before = sent.sent();

            for (int i = 0; i < 10; i++) {
                assertThat(decider.decide(i % 2)).isTrue();
            }

            assertThat(RedisBenchCommands.difference(sent.sent(), before)).isEqualTo(Map.of("EVALSHA", 10L));
        }
    }

    @Test
    void loadCountsEveryDecisionItMade() throws Exception {
        try (RedisBenchRaw raw = new RedisBenchRaw(client)) {
            RedisBenchContender.Decider decider = raw.decider("load", RedisLimiterBench.keyNames(100));
            Map<String, Long> before = sent.sent();

            RedisBenchLoad.Outcome outcome = RedisBenchLoad.run(decider, 100, 8, Duration.ofMillis(100));

            assertThat(outcome.errors()).isZero();
            assertThat(outcome.decisions()).isPositive().isEqualTo(outcome.granted());
            assertThat(RedisBenchCommands.difference(sent.sent(), before))
                    .isEqualTo(Map.of("EVALSHA", outcome.decisions()));
        }
    }

    @Test
    void bucket4jReadsThenSwapsAndWritesWhereTheBenchLooks() throws Exception {
        try (RedisBenchBucket4j bucket4j = new RedisBenchBucket4j(client, "b4j-test", 10, Duration.ofHours(1))) {
            RedisBenchContender.Decider decider = bucket4j.decider("t", new String[] {"a"});
            assertThat(decider.decide(0)).isTrue();
            Map<String, Long> before = sent.sent();

            assertThat(decider.decide(0)).isTrue();

            assertThat(RedisBenchCommands.difference(sent.sent(), before)).isEqualTo(Map.of("GET", 1L, "EVAL", 1L));
            assertThat(admin.scan("b4j-test:t:*")).containsExactly("b4j-test:t:a");
            assertThat(admin.memoryUsage("b4j-test:t:a")).isPositive();
            assertThat(admin.pttl("b4j-test:t:a")).isPositive();
        }
    }

    @Test
    void adminReadsTheServersCpuAndMemory() {
        RedisBenchAdmin.CpuSeconds cpu = admin.cpuSeconds();

        assertThat(cpu.process()).isPositive();
        assertThat(cpu.mainThread()).isPositive().isLessThanOrEqualTo(cpu.process());
        assertThat(admin.usedMemory()).isPositive();
    }

    @Test
    void redisKeysAreGroupedByTheLimiterKeyTheyBelongTo() {
        assertThat(RedisBenchMemory.limiterKeyOf("bench-mem:concurrency:{user-7}"))
                .isEqualTo("bench-mem:concurrency:{user-7}");
        assertThat(RedisBenchMemory.limiterKeyOf("bench-mem:concurrency:{user-7}:x"))
                .isEqualTo("bench-mem:concurrency:{user-7}");
        assertThat(RedisBenchMemory.limiterKeyOf("b4j-mem:token-bucket:user-7"))
                .isEqualTo("b4j-mem:token-bucket:user-7");
    }
}
