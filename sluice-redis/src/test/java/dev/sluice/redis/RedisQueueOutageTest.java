package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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

    /** A producer that keeps each job until an add of it is acknowledged, trying again with the same id. */
    private static final class Producer implements Runnable {
        final List<String> acknowledged = new CopyOnWriteArrayList<>();
        /** When each acknowledged add began and returned, in System.nanoTime(). */
        final List<long[]> acknowledgedAdds = new CopyOnWriteArrayList<>();

        final List<String> failures = new CopyOnWriteArrayList<>();
        final List<Duration> failedAddTimes = new CopyOnWriteArrayList<>();
        private final JobQueue<String> queue;
        private final String name;
        private final AtomicBoolean stop;

        Producer(JobQueue<String> queue, String name, AtomicBoolean stop) {
            this.queue = queue;
            this.name = name;
            this.stop = stop;
        }

        @Override
        public void run() {
            for (int i = 0; !stop.get(); i++) {
                String id = name + "-" + i;
                while (true) {
                    long started = System.nanoTime();
                    try {
                        // the payload is the id: the processor must not need Redis to learn it
                        queue.add("n", id, JobOptions.builder().jobId(id).build());
                        acknowledgedAdds.add(new long[] {started, System.nanoTime()});
                        acknowledged.add(id);
                        break;
                    } catch (SluiceException e) {
                        failedAddTimes.add(Duration.ofNanos(System.nanoTime() - started));
                        failures.add(e.getMessage());
                    }
                    pace();
                }
                pace();
            }
        }

        /** A producer's own pace, and its back-off after a failed add. */
        private static void pace() {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
                    WorkerOptions.concurrency(4).withLeaseTime(Duration.ofSeconds(15)));

            AtomicBoolean stop = new AtomicBoolean();
            List<Producer> producers = List.of(
                    new Producer(queue, "a", stop), new Producer(queue, "b", stop), new Producer(queue, "c", stop));
            List<Thread> threads = new ArrayList<>();
            for (Producer producer : producers) {
                threads.add(Thread.ofPlatform().name("producer").start(producer));
            }
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
                    .until(() -> producers.stream()
                            .allMatch(p -> p.acknowledgedAdds.stream()
                                            .filter(add -> add[0] > restarting)
                                            .count()
                                    >= 20));
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(Duration.ofSeconds(5));
            }

            List<String> acknowledged = new ArrayList<>();
            producers.forEach(p -> acknowledged.addAll(p.acknowledged));
            Awaitility.await("every job in the queue done, with no help")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        JobCounts counts = queue.counts();
                        return counts.waiting() + counts.active() + counts.delayed() == 0;
                    });
            worker.close(Duration.ofSeconds(5));

            assertThat(producers.stream().flatMap(p -> p.acknowledgedAdds.stream()))
                    .as("adds made and acknowledged while Redis was down")
                    .noneMatch(add -> add[0] > killed && add[1] < restarting);
            List<String> failures = new ArrayList<>();
            List<Duration> failedAddTimes = new ArrayList<>();
            producers.forEach(p -> {
                failures.addAll(p.failures);
                failedAddTimes.addAll(p.failedAddTimes);
            });
            assertThat(failures).as("adds refused during the outage").hasSizeGreaterThan(100);
            assertThat(failures).allSatisfy(message -> assertThat(message).contains("the outcome is unknown"));
            assertThat(failedAddTimes)
                    .as("each failed add within the command timeout (plus room for a loaded machine)")
                    .allSatisfy(took -> assertThat(took).isLessThan(COMMAND_TIMEOUT.plusSeconds(1)));

            assertThat(Set.copyOf(acknowledged)).hasSameSizeAs(acknowledged);
            for (String id : acknowledged) {
                Job<String> job =
                        queue.job(id).orElseThrow(() -> new AssertionError("acknowledged job " + id + " lost"));
                assertThat(job.state()).as(id).isEqualTo(JobState.COMPLETED);
                assertThat(job.attempts())
                        .as("attempts of " + id)
                        .filteredOn(a -> a.outcome() == Job.Attempt.Outcome.COMPLETED)
                        .hasSize(1);
            }
            assertThat(acknowledged.stream()
                            .map(id -> queue.job(id).orElseThrow().attempts().get(0)))
                    .as("jobs running when Redis went down, their endings recorded once it was back")
                    .anyMatch(a ->
                            a.startedAt().isBefore(killedAt) && a.finishedAt().isAfter(restartedAt));
            assertThat(queue.counts().completed())
                    .as("no job but the acknowledged ones")
                    .isEqualTo(acknowledged.size());
            assertThat(queue.stats().completed()).as("completions recorded").isEqualTo(acknowledged.size());
            assertThat(queue.counts().waiting()
                            + queue.counts().active()
                            + queue.counts().delayed())
                    .isZero();
            System.out.printf(
                    "outage test: %d jobs acknowledged, %d adds refused during the outage, %d processors ran twice,"
                            + " %d jobs with a stalled attempt%n",
                    acknowledged.size(),
                    failures.size(),
                    runs.values().stream().filter(n -> n.get() > 1).count(),
                    acknowledged.stream()
                            .filter(id -> queue.job(id).orElseThrow().attempts().size() > 1)
                            .count());
        }
    }
}
