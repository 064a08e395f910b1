package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression: a Redis without persistence restarted under running processes came back without the queue's meta
 * hash, so its rate, group limits and codec were gone and jobs ran unlimited, silently, until the application
 * restarted. Each process now restores the settings it knows before the next call that relies on them. Engines on
 * the same keys stand for processes; the server is this class's own, restarted empty.
 */
@Tag("slow")
class RedisQueueSettingsLossTest {
    private static final SlidingWindowLog FOUR_A_SECOND = SlidingWindowLog.of(4, Duration.ofSeconds(1));

    private RedisServer redis;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void aRunningWorkerKeepsTheQueueRateAndGroupConcurrencyAfterRedisRestartsEmpty() throws Exception {
        try (Sluice sluice = engine()) {
            JobQueue<String> queue = sluice.queue(
                    "orders",
                    Codec.utf8(),
                    QueueOptions.builder()
                            .rate(FOUR_A_SECOND)
                            .groupDefaults(GroupLimits.builder().concurrency(1).build())
                            .build());
            AtomicInteger running = new AtomicInteger();
            AtomicInteger mostRunning = new AtomicInteger();
            Worker<String> worker = queue.worker(
                    ctx -> {
                        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        Thread.sleep(30); // long enough for a second claim of the group while this one runs
                        running.decrementAndGet();
                        return Result.done();
                    },
                    WorkerOptions.concurrency(4));
            String before = queue.add("job", "before", inGroup()).job().id();
            awaitCompleted(queue, List.of(before));

            redis.restart();
            Awaitility.await("an add goes through once Redis is back")
                    .atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> queue.add("job", "first after", inGroup()) != null);
            List<NewJob<String>> jobs = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                jobs.add(new NewJob<>("job", "after " + i, inGroup()));
            }
            queue.addBulk(jobs);
            List<String> after = new ArrayList<>();
            queue.jobs(JobState.WAITING, 0, 100).forEach(j -> after.add(j.id()));
            queue.jobs(JobState.ACTIVE, 0, 100).forEach(j -> after.add(j.id()));
            queue.jobs(JobState.COMPLETED, 0, 100).forEach(j -> after.add(j.id()));
            assertThat(after).hasSize(12);
            awaitCompleted(queue, after);
            worker.close(Duration.ofSeconds(5));

            List<Instant> starts = new ArrayList<>();
            for (String id : after) {
                starts.add(queue.job(id).orElseThrow().startedAt());
            }
            starts.sort(null);
            for (int i = 0; i + 4 < starts.size(); i++) {
                assertThat(Duration.between(starts.get(i), starts.get(i + 4)))
                        .as("the 5th start after start %d, by the times the engine recorded: at most 4 a second", i)
                        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
            }
            assertThat(mostRunning.get())
                    .as("jobs of the group running at once")
                    .isEqualTo(1);
            assertThat(settings(queue).restores())
                    .as("restores, each logged once")
                    .isEqualTo(1);
        }
    }

    @Test
    void processesRestoringInEitherOrderEndWithTheLatestSettingEachKnewOf() {
        try (Sluice a = engine();
                Sluice b = engine()) {
            JobQueue<String> opener = a.queue(
                    "orders",
                    Codec.utf8(),
                    QueueOptions.builder()
                            .rate(SlidingWindowLog.of(10, Duration.ofSeconds(1)))
                            .groupDefaults(GroupLimits.builder().concurrency(2).build())
                            .build());
            JobQueue<String> changer = b.queue("orders", Codec.utf8());
            changer.setRate(FOUR_A_SECOND);
            changer.setGroupLimits("vip", GroupLimits.builder().concurrency(5).build());

            for (JobQueue<String> first : List.of(opener, changer)) {
                redis.restart();
                JobQueue<String> second = first == opener ? changer : opener;
                Awaitility.await("the first process adds once Redis is back")
                        .atMost(Duration.ofSeconds(20))
                        .ignoreExceptions()
                        .until(() -> first.add("job", "x") != null);
                second.add("job", "y");

                assertThat(storedRate()).as("the rate set last, by the changer").isEqualTo(FOUR_A_SECOND);
                assertThat(opener.groupLimits("vip").concurrency()).isEqualTo(5);
                assertThat(opener.groupLimits("other").concurrency())
                        .as("the opener's group defaults, which nobody changed")
                        .isEqualTo(2);
            }
            assertThat(settings(opener).restores()).isEqualTo(2);
            assertThat(settings(changer).restores()).isEqualTo(2);
        }
    }

    @Test
    void aProcessRefusesAQueueOpenedAnewWithAnotherCodecAfterRedisLostIt() {
        try (Sluice a = engine();
                Sluice b = engine()) {
            JobQueue<String> queue = a.queue("orders", Codec.utf8());
            queue.add("job", "x");
            redis.restart();
            Awaitility.await("the other process opens the queue once Redis is back")
                    .atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> b.queue("orders", Codec.bytes()) != null);

            assertThatThrownBy(() -> queue.add("job", "y"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                            "opened anew with codec named '" + Codec.bytes().name() + "'")
                    .hasMessageContaining("this process opened it with codec named 'utf8'");
        }
    }

    private static JobOptions inGroup() {
        return JobOptions.builder().group("g").build();
    }

    private static void awaitCompleted(JobQueue<String> queue, List<String> ids) {
        Awaitility.await("jobs completed")
                .atMost(Duration.ofSeconds(20))
                .until(() -> ids.stream()
                        .allMatch(id -> queue.job(id).map(Job::state).orElse(null) == JobState.COMPLETED));
    }

    private Object storedRate() {
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return RateText.decode(connection.sync().hget("sluice:queue:{orders}:m", "rate"));
        } finally {
            client.shutdown();
        }
    }

    private static QueueSettings settings(JobQueue<String> queue) {
        return ((RedisJobQueue<String>) queue).settings;
    }

    private Sluice engine() {
        return RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofSeconds(2))
                .retryInterval(Duration.ofMillis(200))
                .build();
    }
}
