package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every meter's value and tags on the in-memory engine, on virtual time, read from a {@link SimpleMeterRegistry}. */
class SluiceMetricsTest {
    private static final TokenBucket TWO_PER_SECOND = TokenBucket.of(2, Duration.ofSeconds(1));

    private final ManualClock clock = new ManualClock();
    private final Sluice sluice = Sluice.inMemory(clock);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void close() {
        sluice.close();
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    private Timer timer(String name, String... tags) {
        return registry.get(name).tags(tags).timer();
    }

    private Set<String> groupsWithMeters() {
        Set<String> groups = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            if (meter.getId().getName().startsWith("sluice.queue.group.")) {
                groups.add(meter.getId().getTag(MeterNames.GROUP));
            }
        }
        return groups;
    }

    /** Processes one job on the calling thread, the clock moving {@code took} while it runs. */
    private static Result taking(ManualClock clock, Duration took, Result result) {
        clock.advance(took);
        return result;
    }

    @Test
    void countsDecisionsByLimiterOutcomeAndBasisForLimitersMadeBeforeAndAfterTheBinding() {
        RateLimiter before = sluice.limiter("before", TWO_PER_SECOND);
        SluiceMetrics.bind(sluice, registry);
        RateLimiter after = sluice.limiter("after", TWO_PER_SECOND);

        before.tryAcquire("k");
        before.tryConsume("k");
        before.tryAcquire("k");
        after.tryAcquire("k", 2);

        assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", "before", "outcome", "allowed", "basis", "limit"))
                .isEqualTo(2);
        assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", "before", "outcome", "denied", "basis", "limit"))
                .isEqualTo(1);
        assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", "after", "outcome", "allowed", "basis", "limit"))
                .isEqualTo(1);
        assertThat(count(MeterNames.LIMITER_DECISIONS, "limiter", "after", "outcome", "denied", "basis", "limit"))
                .as("registered at once, at zero")
                .isZero();
        assertThat(gauge(MeterNames.LIMITER_UNAVAILABLE, "limiter", "after")).isZero();
        assertThat(count(MeterNames.LIMITER_OUTAGES, "limiter", "after")).isZero();
        assertThat(registry.find(MeterNames.LIMITER_DECISIONS)
                        .tag("basis", "fallback")
                        .counters())
                .as("degraded bases appear with their first decision")
                .isEmpty();
    }

    @Test
    void countsKeysDecidedAgainstAFullTableAndIdleKeysEvicted() {
        SluiceMetrics.bind(sluice, registry);
        RateLimiter limiter = sluice.limiter(
                "small",
                TokenBucket.of(1, Duration.ofSeconds(1)),
                LimiterOptions.builder().maxKeys(1).build());

        limiter.tryAcquire("a");
        limiter.tryAcquire("b");
        clock.advance(Duration.ofMinutes(2));
        limiter.tryAcquire("c");

        assertThat(count(MeterNames.LIMITER_KEYS_OVERFLOWED, "limiter", "small"))
                .isEqualTo(1);
        assertThat(count(MeterNames.LIMITER_KEYS_EVICTED, "limiter", "small")).isEqualTo(1);
    }

    @Test
    void jobGaugesReadTheQueueWhenReadAndCountersHearEveryOutcome() {
        JobQueue<String> before = sluice.queue("before", Codec.utf8());
        before.add("a", "x");
        SluiceMetrics.bind(sluice, registry);
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        queue.add("done", "1");
        queue.add("retried", "2", JobOptions.builder().attempts(2).build());
        queue.add("failed", "3", JobOptions.builder().attempts(1).build());
        queue.add("limited", "4");
        queue.add("again", "5");
        queue.add(
                "later", "6", JobOptions.builder().delay(Duration.ofMinutes(5)).build());

        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "before", "state", "waiting"))
                .isEqualTo(1);
        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "mail", "state", "waiting"))
                .isEqualTo(5);
        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "mail", "state", "delayed"))
                .isEqualTo(1);
        assertThat(count(MeterNames.QUEUE_JOBS_ADDED, "queue", "mail")).isEqualTo(6);
        assertThat(count(MeterNames.QUEUE_JOBS_ADDED, "queue", "before"))
                .as("added before the binding")
                .isZero();

        int[] limitedOnce = {0};
        int[] againOnce = {0};
        Worker<String> worker = queue.worker(
                job -> switch (job.job().name()) {
                    case "retried" -> {
                        if (job.attempt() == 1) {
                            throw new IllegalStateException("first attempt fails");
                        }
                        yield Result.done();
                    }
                    case "failed" -> throw new IllegalStateException("fails for good");
                    case "limited" ->
                        limitedOnce[0]++ == 0
                                ? Result.rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(1))
                                : Result.done();
                    case "again" -> againOnce[0]++ == 0 ? Result.runAgainAfter(Duration.ofSeconds(1)) : Result.done();
                    default -> Result.done();
                },
                WorkerOptions.manual());
        for (int round = 0; round < 4; round++) {
            worker.runDue();
            clock.advance(Duration.ofMinutes(10));
        }

        assertThat(count(MeterNames.QUEUE_JOBS_COMPLETED, "queue", "mail")).isEqualTo(5);
        assertThat(count(MeterNames.QUEUE_JOBS_FAILED, "queue", "mail")).isEqualTo(1);
        assertThat(count(MeterNames.QUEUE_JOBS_RETRIED, "queue", "mail")).isEqualTo(1);
        assertThat(count(MeterNames.QUEUE_JOBS_RATE_LIMITED, "queue", "mail", "scope", "queue"))
                .isEqualTo(1);
        assertThat(count(MeterNames.QUEUE_JOBS_RATE_LIMITED, "queue", "mail", "scope", "group"))
                .isZero();
        assertThat(count(MeterNames.QUEUE_JOBS_RESCHEDULED, "queue", "mail")).isEqualTo(1);
        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "mail", "state", "completed"))
                .isEqualTo(5);
        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "mail", "state", "failed"))
                .isEqualTo(1);
        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "mail", "state", "waiting"))
                .isZero();
        assertThat(timer(MeterNames.QUEUE_PROCESSING, "queue", "mail", "outcome", "completed")
                        .count())
                .isEqualTo(5);
        assertThat(timer(MeterNames.QUEUE_PROCESSING, "queue", "mail", "outcome", "failed")
                        .count())
                .as("the retried attempt and the final failure")
                .isEqualTo(2);
        assertThat(timer(MeterNames.QUEUE_PROCESSING, "queue", "mail", "outcome", "rate_limited")
                        .count())
                .isEqualTo(1);
        assertThat(timer(MeterNames.QUEUE_PROCESSING, "queue", "mail", "outcome", "rescheduled")
                        .count())
                .isEqualTo(1);
    }

    @Test
    void waitAndProcessingTimesAreExactOnVirtualTime() {
        SluiceMetrics.bind(sluice, registry);
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        queue.add("now", "1");
        queue.add(
                "delayed",
                "2",
                JobOptions.builder().delay(Duration.ofSeconds(10)).build());
        Worker<String> worker = queue.worker(
                job -> taking(clock, Duration.ofMillis(job.job().name().equals("now") ? 250 : 750), Result.done()),
                WorkerOptions.manual());

        clock.advance(Duration.ofSeconds(3));
        worker.runDue();
        clock.advance(Duration.ofSeconds(10));
        worker.runDue();

        Timer waited = timer(MeterNames.QUEUE_WAIT, "queue", "mail");
        assertThat(waited.count()).isEqualTo(2);
        assertThat(waited.totalTime(TimeUnit.MILLISECONDS))
                .as("3 s for the first; the second was ready at 10 s and started at 13.25 s")
                .isEqualTo(3_000 + 3_250);
        assertThat(waited.max(TimeUnit.MILLISECONDS)).isEqualTo(3_250);
        Timer processing = timer(MeterNames.QUEUE_PROCESSING, "queue", "mail", "outcome", "completed");
        assertThat(processing.count()).isEqualTo(2);
        assertThat(processing.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1_000);
        assertThat(processing.takeSnapshot().percentileValues())
                .as("the default percentiles 0.5, 0.9, 0.99")
                .hasSize(3);
    }

    @Test
    void aRateLimitedJobWaitsFromItsReturnToWaitingAndARetriedOneFromTheEndOfItsBackoff() {
        SluiceMetrics.bind(sluice, registry);
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        queue.add("limited", "1", JobOptions.builder().group("g").build());
        queue.add(
                "retried",
                "2",
                JobOptions.builder()
                        .attempts(2)
                        .backoff(dev.sluice.queue.Backoff.fixed(Duration.ofSeconds(1)))
                        .build());
        int[] runs = {0};
        Worker<String> worker = queue.worker(
                job -> {
                    if (job.attempt() == 1 && runs[0]++ < 2) {
                        if (job.job().name().equals("limited")) {
                            return Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(2));
                        }
                        throw new IllegalStateException("again");
                    }
                    return Result.done();
                },
                WorkerOptions.manual());
        worker.runDue();
        clock.advance(Duration.ofSeconds(5));
        worker.runDue();

        Timer waited = timer(MeterNames.QUEUE_WAIT, "queue", "mail");
        assertThat(waited.count()).as("two first attempts and both second ones").isEqualTo(4);
        assertThat(waited.totalTime(TimeUnit.SECONDS))
                .as("0 + 0, then 5 s from the rate-limited end and 4 s from the backoff's end (1 s)")
                .isEqualTo(9);
        assertThat(count(MeterNames.QUEUE_JOBS_COMPLETED, "queue", "mail")).isEqualTo(2);
    }

    @Test
    void aJobRunAgainWaitsFromTheEndOfItsDelayOnTheQueueAndItsGroup() {
        SluiceMetrics.bind(
                sluice, registry, MetricsOptions.builder().groups("g").build());
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        queue.add("poll", "1", JobOptions.builder().group("g").build());
        Worker<String> worker = queue.worker(
                job -> job.attempt() == 1 && job.job().attempts().size() == 1
                        ? Result.runAgainAfter(Duration.ofSeconds(30))
                        : Result.done(),
                WorkerOptions.manual());
        worker.runDue();
        clock.advance(Duration.ofSeconds(42));
        worker.runDue();

        for (Timer waited : List.of(
                timer(MeterNames.QUEUE_WAIT, "queue", "mail"),
                timer(MeterNames.GROUP_WAIT, "queue", "mail", "group", "g"))) {
            assertThat(waited.count()).isEqualTo(2);
            assertThat(waited.totalTime(TimeUnit.SECONDS))
                    .as("0, then 12 s from the end of the 30 s delay")
                    .isEqualTo(12);
        }
        assertThat(count(MeterNames.QUEUE_JOBS_RESCHEDULED, "queue", "mail")).isEqualTo(1);
    }

    @Test
    void onlyTheNamedGroupsGetMetersOfTheirOwn() {
        SluiceMetrics.bind(
                sluice, registry, MetricsOptions.builder().groups("acme").build());
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        for (String group : List.of("acme", "acme", "other", "third")) {
            queue.add("job", "x", JobOptions.builder().group(group).build());
        }
        queue.add("ungrouped", "x");

        assertThat(groupsWithMeters()).containsExactly("acme");
        assertThat(count(MeterNames.GROUP_JOBS_ADDED, "queue", "mail", "group", "acme"))
                .isEqualTo(2);
        assertThat(gauge(MeterNames.GROUP_JOBS, "queue", "mail", "group", "acme", "state", "waiting"))
                .isEqualTo(2);
        assertThat(count(MeterNames.QUEUE_JOBS_ADDED, "queue", "mail")).isEqualTo(5);
    }

    @Test
    void theBusiestGroupsHoldAtMostTheirPlacesAndTheRankingMovesThemToTheBusiest() {
        SluiceMetrics.bind(
                sluice,
                registry,
                MetricsOptions.builder()
                        .groups("vip")
                        .busiestGroups(2)
                        .rankEvery(Duration.ofMinutes(1))
                        .build());
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        add(queue, "quiet", 1);
        add(queue, "noisy", 1);
        add(queue, "busy", 5);
        add(queue, "noisy", 9);
        add(queue, "vip", 1);

        assertThat(groupsWithMeters())
                .as("the first two heard, and the named one")
                .containsExactly("noisy", "quiet", "vip");
        assertThat(count(MeterNames.GROUP_JOBS_ADDED, "queue", "mail", "group", "noisy"))
                .isEqualTo(10);

        clock.advance(Duration.ofMinutes(1));
        add(queue, "busy", 1);

        assertThat(groupsWithMeters())
                .as("ranked by the last minute: noisy 10, busy 6")
                .containsExactly("busy", "noisy", "vip");
        assertThat(count(MeterNames.GROUP_JOBS_ADDED, "queue", "mail", "group", "busy"))
                .as("counted from when it got its place")
                .isEqualTo(1);

        clock.advance(Duration.ofSeconds(30));
        add(queue, "busy", 1);
        clock.advance(Duration.ofSeconds(30));
        add(queue, "quiet", 1);

        assertThat(groupsWithMeters())
                .as("the last minute heard busy and quiet once each, noisy never: noisy loses its place")
                .containsExactly("busy", "quiet", "vip");
        assertThat(count(MeterNames.QUEUE_JOBS_ADDED, "queue", "mail")).isEqualTo(20);
    }

    private static void add(JobQueue<String> queue, String group, int jobs) {
        for (int i = 0; i < jobs; i++) {
            queue.add("job", "x", JobOptions.builder().group(group).build());
        }
    }

    @Test
    void closingRemovesEveryMeterAndListenerAndLaterEventsRegisterNothing() {
        SluiceMetrics metrics = SluiceMetrics.bind(
                sluice, registry, MetricsOptions.builder().busiestGroups(3).build());
        RateLimiter limiter = sluice.limiter("api", TWO_PER_SECOND);
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        queue.add("job", "x", JobOptions.builder().group("g").build());
        limiter.tryAcquire("k");
        assertThat(registry.getMeters()).isNotEmpty();

        metrics.close();
        limiter.tryAcquire("k");
        queue.add("job", "x", JobOptions.builder().group("g").build());
        sluice.limiter("new", TWO_PER_SECOND);
        sluice.queue("new", Codec.utf8());
        metrics.close();

        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void closingAfterTheEngineClosedRemovesTheMetersAndAClosedEnginesGaugesReadNaN() {
        SluiceMetrics metrics = SluiceMetrics.bind(sluice, registry);
        sluice.queue("mail", Codec.utf8()).add("job", "x");
        sluice.close();

        assertThat(gauge(MeterNames.QUEUE_JOBS, "queue", "mail", "state", "waiting"))
                .isNaN();
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void oneBinderBindsToSeveralRegistriesWithTheOptionsTags() {
        SimpleMeterRegistry other = new SimpleMeterRegistry();
        SluiceMetrics metrics = SluiceMetrics.of(
                sluice,
                MetricsOptions.builder().tag("app", "billing").percentiles().build());
        metrics.bindTo(registry);
        metrics.bindTo(other);
        RateLimiter limiter = sluice.limiter("api", TWO_PER_SECOND);
        limiter.tryAcquire("k");
        sluice.queue("mail", Codec.utf8()).add("job", "x");

        for (SimpleMeterRegistry each : List.of(registry, other)) {
            assertThat(each.get(MeterNames.LIMITER_DECISIONS)
                            .tags(Tags.of("app", "billing", "limiter", "api", "outcome", "allowed"))
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(each.get(MeterNames.QUEUE_JOBS_ADDED)
                            .tag("app", "billing")
                            .counter()
                            .count())
                    .isEqualTo(1);
            assertThat(each.getMeters())
                    .allSatisfy(meter -> assertThat(meter.getId().getTag("app")).isEqualTo("billing"));
        }
        assertThat(timer(MeterNames.QUEUE_WAIT, "queue", "mail").takeSnapshot().percentileValues())
                .isEmpty();
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(other.getMeters()).isEmpty();
    }
}
