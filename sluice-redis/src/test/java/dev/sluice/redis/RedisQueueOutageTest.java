package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A Redis queue through a Redis that is killed, kept down for 10 s and started again from its append-only file,
 * while producers keep adding and a worker keeps running: every add either returns once Redis has the job or throws
 * a {@link SluiceException} within the command timeout saying its outcome is unknown; everyone goes on by themselves
 * once Redis is back; every acknowledged job is completed, once.
 *
 * <p>{@code appendfsync always}: Redis writes and fsyncs the file before it answers, so an acknowledged add is in
 * the file whatever the disk does. With {@code everysec} a killed process normally loses nothing either (the write
 * reaches the OS before the answer), but while a background fsync is slow Redis postpones the write for up to 2 s
 * and answers anyway, and this test would then depend on the machine's disk.
 */
@Tag("slow")
class RedisQueueOutageTest {
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    private static final Duration OUTAGE = Duration.ofSeconds(10);

    private RedisServer redis;

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    @Test
    void producersAndWorkersGoOnByThemselvesThroughATenSecondOutageAndNoAcknowledgedJobIsLost() throws Exception {
        try (Sluice sluice = RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(COMMAND_TIMEOUT)
                .retryInterval(Duration.ofMillis(200))
                .build()) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
            Worker<String> worker = queue.worker(
                    ctx -> {
                        runs.computeIfAbsent(ctx.payload(), id -> new AtomicInteger())
                                .incrementAndGet();
                        Thread.sleep(20);
                        return Result.done();
                    },
                    // longer than the outage, so that the jobs running when Redis goes down still hold theirs
                    // after it; a claim whose reply the outage swallowed holds its job until the lease runs out
                    WorkerOptions.builder()
                            .concurrency(4)
                            .leaseTime(Duration.ofSeconds(15))
                            .build());

            List<RetryingProducer> producers = RetryingProducer.start(queue, "a", "b", "c");
            Awaitility.await("jobs added and completed before the outage")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> runs.size() >= 30);

            Instant killedAt = Instant.now();
            redis.kill();
            long killed = System.nanoTime();
            Thread.sleep(OUTAGE.toMillis());
            long restarting = System.nanoTime();
            redis.restart();
            Instant restartedAt = Instant.now();

            Awaitility.await("every producer's adds acknowledged again after the restart")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> producers.stream().allMatch(p -> p.acknowledgedAfter(restarting) >= 20));
            RetryingProducer.stop(producers);
            List<String> acknowledged = RetryingProducer.all(producers, p -> p.acknowledged);
            AcknowledgedJobs.awaitDone(queue, Duration.ofSeconds(20));
            worker.close(Duration.ofSeconds(5));

            assertThat(RetryingProducer.all(producers, p -> p.acknowledgedAdds))
                    .as("adds made and acknowledged while Redis was down")
                    .noneMatch(add -> add[0] > killed && add[1] < restarting);
            List<String> failures = RetryingProducer.all(producers, p -> p.failures);
            List<Duration> failedAddTimes = RetryingProducer.all(producers, p -> p.failedAddTimes);
            assertThat(failures).as("adds refused during the outage").hasSizeGreaterThan(100);
            assertThat(failures).allSatisfy(message -> assertThat(message).contains("the outcome is unknown"));
            assertThat(failedAddTimes)
                    .as("each failed add within the command timeout (plus room for a loaded machine)")
                    .allSatisfy(took -> assertThat(took).isLessThan(COMMAND_TIMEOUT.plusSeconds(1)));

            AcknowledgedJobs.assertEachCompletedOnce(queue, acknowledged);
            assertThat(acknowledged.stream()
                            .flatMap(id -> queue.job(id).orElseThrow().attempts().stream())
                            .filter(a -> a.outcome() == Job.Attempt.Outcome.COMPLETED))
                    .as("jobs running when Redis went down, their endings recorded once it was back")
                    .anyMatch(a ->
                            a.startedAt().isBefore(killedAt) && a.finishedAt().isAfter(restartedAt));
            System.out.printf(
                    "outage test: %d jobs acknowledged, %d adds refused during the outage, %d processors ran twice,"
                            + " %d jobs with a stalled attempt%n",
                    acknowledged.size(),
                    failures.size(),
                    runs.values().stream().filter(n -> n.get() > 1).count(),
                    AcknowledgedJobs.withMoreThanOneAttempt(queue, acknowledged));
        }
    }
}
