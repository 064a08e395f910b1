package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a binding does on every engine, with real workers: limiters and queues opened before and after the
 * binding are metered, groups are bounded, and closing removes everything. Subclassed once per engine.
 */
abstract class BindingContract {
    private static final TokenBucket TWO_PER_HOUR = TokenBucket.of(2, Duration.ofHours(1));

    protected Sluice sluice;
    protected final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<Worker<?>> workers = new ArrayList<>();

    /** A new, empty engine on the system clock. */
    protected abstract Sluice newEngine();

    @BeforeEach
    void open() {
        sluice = newEngine();
    }

    @AfterEach
    void closeEngine() {
        workers.forEach(worker -> worker.closeAsync(Duration.ZERO).join());
        sluice.close();
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    private void work(JobQueue<String> queue) {
        workers.add(queue.worker(job -> Result.done(), WorkerOptions.concurrency(2)));
    }

    @Test
    void metersLimitersAndQueuesOpenedBeforeAndAfterTheBinding() {
        RateLimiter limiterBefore = sluice.limiter("before", TWO_PER_HOUR);
        JobQueue<String> queueBefore = sluice.queue("before", Codec.utf8());
        SluiceMetrics metrics = SluiceMetrics.bind(sluice, registry);
        RateLimiter limiterAfter = sluice.limiter("after", TWO_PER_HOUR);
        JobQueue<String> queueAfter = sluice.queue("after", Codec.utf8());

        for (int i = 0; i < 3; i++) {
            limiterBefore.tryAcquire("k");
            limiterAfter.tryAcquire("k");
        }
        for (int i = 0; i < 4; i++) {
            queueBefore.add("job", "x");
            queueAfter.add("job", "x");
        }
        work(queueBefore);
        work(queueAfter);

        for (String name : List.of("before", "after")) {
            assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", name, "outcome", "allowed", "basis", "limit"))
                    .isEqualTo(2);
            assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", name, "outcome", "denied", "basis", "limit"))
                    .isEqualTo(1);
            assertThat(count(MeterNames.QUEUE_JOBS_ADDED, "queue", name)).isEqualTo(4);
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(count(MeterNames.QUEUE_JOBS_COMPLETED, "queue", name))
                            .isEqualTo(4));
            assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", name, "state", "completed"))
                    .isEqualTo(4);
            assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", name, "state", "waiting"))
                    .isZero();
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(registry.get(MeterNames.QUEUE_PROCESSING)
                                    .tags("queue", name, "outcome", "completed")
                                    .timer()
                                    .count())
                            .isEqualTo(4));
            assertThat(registry.get(MeterNames.QUEUE_WAIT)
                            .tags("queue", name)
                            .timer()
                            .count())
                    .isEqualTo(4);
        }
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aRetriedAttemptsWaitIsMeasuredFromTheEndOfItsBackoff() {
        SluiceMetrics.bind(sluice, registry);
        JobQueue<String> queue = sluice.queue("retries", Codec.utf8());
        queue.add(
                "flaky",
                "x",
                JobOptions.builder()
                        .attempts(2)
                        .backoff(Backoff.fixed(Duration.ofMillis(200)))
                        .build());
        workers.add(queue.worker(
                job -> {
                    if (job.attempt() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    return Result.done();
                },
                WorkerOptions.concurrency(1)));
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(count(MeterNames.QUEUE_JOBS_COMPLETED, "queue", "retries"))
                        .isEqualTo(1));

        Timer waited =
                registry.get(MeterNames.QUEUE_WAIT).tags("queue", "retries").timer();
        assertThat(waited.count()).as("the first attempt and the retry").isEqualTo(2);
        assertThat(waited.max(TimeUnit.SECONDS))
                .as("the retry waited from its backoff's end, not from its first attempt")
                .isLessThan(15);
        assertThat(count(MeterNames.QUEUE_JOBS_RETRIED, "queue", "retries")).isEqualTo(1);
    }

    @Test
    void anAdaptiveRateShowsItsRateInForceItsConfiguredRateItsCutsAndItsChangesByReason() {
        SluiceMetrics.bind(
                sluice, registry, MetricsOptions.builder().groups("acme").build());
        JobQueue<String> queue = sluice.queue(
                "carrier",
                Codec.utf8(),
                QueueOptions.builder()
                        .rate(AdaptiveRate.of(Gcra.of(100, Duration.ofSeconds(1), 100)))
                        .groupDefaults(GroupLimits.builder()
                                .rate(AdaptiveRate.of(Gcra.of(40, Duration.ofSeconds(1), 40)))
                                .build())
                        .build());
        JobQueue<String> plain = sluice.queue("plain", Codec.utf8());
        queue.add(
                "job", "x", JobOptions.builder().group("acme").jobId("refused").build());
        workers.add(queue.worker(
                job -> Result.overloaded(Result.Scope.GROUP, Duration.ofHours(1)), WorkerOptions.concurrency(1)));
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(gauge(MeterNames.GROUP_RATE_CUTS, "queue", "carrier", "group", "acme"))
                        .isEqualTo(1));

        assertThat(gauge(MeterNames.GROUP_RATE, "queue", "carrier", "group", "acme"))
                .isCloseTo(34.0, within(1e-9));
        assertThat(gauge(MeterNames.GROUP_RATE_CONFIGURED, "queue", "carrier", "group", "acme"))
                .isEqualTo(40.0);
        assertThat(gauge(MeterNames.QUEUE_RATE, "queue", "carrier")).isEqualTo(100.0);
        assertThat(gauge(MeterNames.QUEUE_RATE_CONFIGURED, "queue", "carrier")).isEqualTo(100.0);
        assertThat(gauge(MeterNames.QUEUE_RATE_CUTS, "queue", "carrier")).isZero();
        assertThat(gauge(MeterNames.GROUP_RATE_CHANGES, "queue", "carrier", "group", "acme", "reason", "cut"))
                .isEqualTo(1.0);
        assertThat(gauge(MeterNames.GROUP_RATE_CHANGES, "queue", "carrier", "group", "acme", "reason", "climb"))
                .isZero();
        assertThat(gauge(MeterNames.QUEUE_RATE_CHANGES, "queue", "carrier", "reason", "cut"))
                .isZero();
        assertThat(gauge(MeterNames.QUEUE_RATE, "queue", "plain")).isNaN();
        assertThat(plain.stats().rate()).isNull();
    }

    @Test
    void groupsGetMetersOnlyWhenNamedOrAmongTheBusiestFew() {
        SluiceMetrics.bind(
                sluice,
                registry,
                MetricsOptions.builder().groups("vip").busiestGroups(2).build());
        JobQueue<String> queue = sluice.queue("tenants", Codec.utf8());
        for (int i = 0; i < 50; i++) {
            queue.add("job", "x", JobOptions.builder().group("tenant-" + i).build());
        }
        queue.add("job", "x", JobOptions.builder().group("vip").build());
        work(queue);
        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(count(MeterNames.QUEUE_JOBS_COMPLETED, "queue", "tenants"))
                        .isEqualTo(51));

        Set<String> metered = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            String group = meter.getId().getTag(MeterNames.GROUP);
            if (group != null) {
                metered.add(group);
            }
        }
        assertThat(metered).contains("vip").hasSize(3);
        assertThat(gauge(MeterNames.GROUP_JOBS, "queue", "tenants", "group", "vip", "state", "completed"))
                .isEqualTo(1);
        assertThat(count(MeterNames.GROUP_JOBS_COMPLETED, "queue", "tenants", "group", "vip"))
                .isEqualTo(1);
    }

    @Test
    void closingTheBindingStopsItsListenersAndRemovesItsMeters() {
        SluiceMetrics metrics = SluiceMetrics.bind(sluice, registry);
        JobQueue<String> queue = sluice.queue("q", Codec.utf8());
        sluice.limiter("api", TWO_PER_HOUR).tryAcquire("k");
        queue.add("job", "x");

        metrics.close();
        queue.add("job", "x");
        sluice.limiter("later", TWO_PER_HOUR).tryAcquire("k");
        sluice.queue("later", Codec.utf8()).add("job", "x");

        assertThat(registry.getMeters()).isEmpty();
        SluiceMetrics.bind(sluice, registry);
        queue.add("job", "x");
        assertThat(count(MeterNames.QUEUE_JOBS_ADDED, "queue", "q")).isEqualTo(1);
        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "q", "state", "waiting"))
                .isEqualTo(3);
    }
}
