package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.queue.Retention;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link QueueRedisBench}'s scenarios run end to end on a tiny workload against a private Redis (so that the
 * benchmark cannot rot), and its arithmetic means what the BullMQ harness means. Nothing here is timed.
 */
class QueueRedisBenchTest {
    private static final QueueRedisScenarios.Params TINY = new QueueRedisScenarios.Params(
            120, 50, 8, List.of(1, 4), 4, 40, 400, 2, 12, 3, 5, 500, Duration.ofMinutes(1));

    private static RedisServer redis;
    private static RedisBenchAdmin admin;
    private static QueueRedisScenarios scenarios;

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
        admin = new RedisBenchAdmin(redis.uri());
        scenarios = new QueueRedisScenarios(redis.uri(), admin, TINY, QueueRedisBench.childCommand());
    }

    @AfterAll
    static void stop() {
        admin.close();
        redis.close();
    }

    @Test
    void enqueueAddsEveryJobBothWaysAndLeavesNoKey() throws Exception {
        Map<String, Double> a = scenarios.run("A");

        assertThat(a.get("addBulk_jobs_per_s")).isPositive();
        assertThat(a.get("add64_jobs_per_s")).isPositive();
        assertThat(a.get("addBulk_redis_cpu_us_per_job")).isPositive();
        assertThat(a.get("add64_redis_cpu_us_per_job")).isPositive();
        assertThat(admin.scan("*")).isEmpty();
    }

    @Test
    void processMeasuresEveryConcurrencyAndTheMemoryOfKeptJobs() throws Exception {
        Map<String, Double> b = scenarios.run("B");

        for (String c : List.of("c1", "c4", "keep_c4")) {
            assertThat(b.get(c + "_jobs_per_s")).as(c).isPositive();
            assertThat(b.get(c + "_lifecycle_redis_cpu_us_per_job"))
                    .as(c)
                    .isCloseTo(
                            b.get(c + "_add_redis_cpu_us_per_job") + b.get(c + "_process_redis_cpu_us_per_job"),
                            within(1e-6));
        }
        for (String c : List.of("c1", "c4", "keep_c4")) {
            assertThat(b.get(c + "_lifecycle_client_cpu_us_per_job"))
                    .as(c)
                    .isCloseTo(
                            b.get(c + "_add_client_cpu_us_per_job") + b.get(c + "_process_client_cpu_us_per_job"),
                            within(1e-6));
        }
        assertThat(b.get("noop_calls_per_s")).isPositive();
        assertThat(b.get("noop_us_per_call") * b.get("noop_calls_per_s")).isCloseTo(1e6, within(1.0));
        assertThat(b.get("noop_redis_cpu_us_per_call")).isPositive();
        // 120 kept jobs of 100-byte payloads hold more than their payloads
        assertThat(b.get("mem_bytes_per_completed_job")).isGreaterThan(100);
        assertThat(b.get("mem_usage_bytes_per_job")).isGreaterThan(100);
        assertThat(b.keySet()).anyMatch(k -> k.startsWith("mem_key_bytes"));
        assertThat(admin.scan("*")).isEmpty();
    }

    @Test
    void featureCaseKeepsEveryJobOfItsTenGroupsAndLeavesNoKey() throws Exception {
        Map<String, Double> f = scenarios.run("F");

        assertThat(f.get("features_c4_jobs_per_s")).isPositive();
        assertThat(f.get("features_c4_lifecycle_redis_cpu_us_per_job"))
                .isCloseTo(
                        f.get("features_c4_add_redis_cpu_us_per_job")
                                + f.get("features_c4_process_redis_cpu_us_per_job"),
                        within(1e-6));
        assertThat(f.get("features_c4_process_client_cpu_us_per_job")).isPositive();
        assertThat(admin.scan("*")).isEmpty();
    }

    @Test
    void featureCaseSpreadsJobsOverTenRateLimitedGroupsAndKeepsThem() {
        assertThat(IntStream.range(0, 20).mapToObj(FeatureScenario::group).distinct())
                .hasSize(10)
                .contains("g0", "g9");
        assertThat(FeatureScenario.options().groupDefaults().rate()).isEqualTo(FeatureScenario.GROUP_RATE);
        assertThat(FeatureScenario.options().jobDefaults().keepCompleted()).isEqualTo(Retention.keepAll());
    }

    @Test
    void noopFloorCallsAFunctionAndDeletesItsLibraryWhenClosed() throws Exception {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> look = client.connect()) {
            try (NoopFloor noop = NoopFloor.open(redis.uri(), Duration.ofSeconds(10))) {
                assertThat(noop.functions()).isTrue();
                assertThat(noop.measure(20, admin).get("noop_calls_per_s")).isPositive();
                assertThat(look.sync().functionList(NoopFloor.NAME)).hasSize(1);
            }
            assertThat(look.sync().functionList(NoopFloor.NAME)).isEmpty();
            assertThat(admin.scan("*")).isEmpty();
        } finally {
            client.shutdown();
        }
    }

    @Test
    void latencyHasEveryPercentileInOrder() throws Exception {
        Map<String, Double> c = scenarios.run("C");

        assertThat(c.get("producer_jobs_per_s")).isPositive();
        for (String figure : List.of("latency", "hr_add_to_start", "completed")) {
            assertThat(c.get(figure + "_p50_ms")).as(figure).isGreaterThanOrEqualTo(0);
            assertThat(c.get(figure + "_p99_ms")).as(figure).isGreaterThanOrEqualTo(c.get(figure + "_p50_ms"));
            assertThat(c.get(figure + "_max_ms")).as(figure).isGreaterThanOrEqualTo(c.get(figure + "_p99_ms"));
        }
        assertThat(admin.scan("*")).isEmpty();
    }

    @Test
    void oneRateLimitedWorkerStartsEveryJobWithinTheRateByRedisStamps() throws Exception {
        Map<String, Double> d = scenarios.run("D");

        // 12 jobs at 5 per 500 ms: three windows' worth, never more than 5 in any by the engine's stamps
        assertThat(d.get("max_sliding_1000ms_processedOn")).isEqualTo(5.0);
        assertThat(d.get("max_sliding_1000ms")).isGreaterThanOrEqualTo(5.0);
        // the 11th start comes at least 1,000 ms after the first, and the clock started before that
        assertThat(d.get("achieved_jobs_per_s")).isLessThanOrEqualTo(12.0);
        assertThat(d.get("start_delay_p50_ms")).isGreaterThanOrEqualTo(0.0);
        assertThat(admin.scan("*")).isEmpty();
    }

    @Test
    void twoWorkerProcessesShareTheJobsAndTheRate() throws Exception {
        Map<String, Double> e = scenarios.run("E");

        assertThat(e.get("jobs_in_parent") + e.get("jobs_in_child")).isEqualTo(12.0);
        assertThat(e.get("max_sliding_1000ms_processedOn")).isEqualTo(5.0);
        assertThat(e.get("achieved_jobs_per_s")).isLessThanOrEqualTo(12.0);
        assertThat(admin.scan("*")).isEmpty();
    }

    @Test
    void payloadIsTheHarnesss100ByteJson() {
        assertThat(QueueRedisScenarios.payload(42)).hasSize(100).startsWith("{\"seq\":\"00042\",\"pad\":\"xxx");
        assertThat(QueueRedisScenarios.seqOf(QueueRedisScenarios.payload(19_999)))
                .isEqualTo(19_999);
    }

    @Test
    void slidingWindowsAreHalfOpenAndAnchoredAtEveryStart() {
        double[] starts = {0, 10, 999.9, 1000, 1500, 1999.9};

        // [0, 1000) holds 0, 10, 999.9; [10, 1010) holds 10, 999.9, 1000; [999.9, 1999.9) holds 999.9, 1000, 1500
        assertThat(QueueRedisFigures.maxSliding(starts, 1000)).isEqualTo(3);
        assertThat(QueueRedisFigures.maxSliding(new double[] {0, 1000, 2000}, 1000))
                .isEqualTo(1);
        // fixed buckets floor(t / 1000): {0, 10, 999.9} and {1000, 1500, 1999.9}
        assertThat(QueueRedisFigures.maxFixed(starts, 1000, 0)).isEqualTo(3);
        assertThat(QueueRedisFigures.maxFixed(new double[] {999, 1001}, 1000, 0))
                .isEqualTo(1);
    }

    @Test
    void percentilesAreNearestRankAndMediansAverageTheMiddlePair() {
        double[] sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

        assertThat(QueueRedisFigures.percentile(sorted, 0.5)).isEqualTo(5);
        assertThat(QueueRedisFigures.percentile(sorted, 0.99)).isEqualTo(10);
        assertThat(QueueRedisFigures.percentile(sorted, 0)).isEqualTo(1);
        assertThat(QueueRedisFigures.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(QueueRedisFigures.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(QueueRedisFigures.median(List.of(Double.NaN, 7.0))).isEqualTo(7.0);
    }

    @Test
    void limiterFiguresCountRatesOverTheSpans() {
        Map<String, Double> figures = QueueRedisFigures.limiterFigures(
                new double[] {2000, 1000, 1500, 1100}, new double[] {1000, 1100, 1500, 2000}, 1000, 3000, 1000);

        assertThat(figures.get("achieved_jobs_per_s")).isEqualTo(2.0);
        assertThat(figures.get("start_span_ms")).isEqualTo(1000.0);
        assertThat(figures.get("start_rate_jobs_per_s")).isEqualTo(3.0);
        assertThat(figures.get("max_sliding_1000ms")).isEqualTo(3.0);
        assertThat(figures.get("max_fixed_aligned_1000ms")).isEqualTo(3.0);
    }
}
