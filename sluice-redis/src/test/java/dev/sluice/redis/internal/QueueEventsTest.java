package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.Events;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Redis queue's events across processes: two engines on the same keys stand for two processes (a second JVM is
 * in {@code ManyWorkerProcessesTest}). Each test has a Redis server of this class, so that the commands Redis
 * counts are this test's.
 */
class QueueEventsTest {
    private static final AtomicLong PREFIXES = new AtomicLong();
    private static RedisServer redis;
    private static RedisClient client;
    private static StatefulRedisConnection<byte[], byte[]> raw;

    private final String prefix = "ev" + PREFIXES.incrementAndGet();

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        raw = client.connect(ByteArrayCodec.INSTANCE);
    }

    @AfterAll
    static void stopRedis() {
        raw.close();
        client.shutdown();
        redis.close();
    }

    private Sluice engine() {
        return RedisSluice.builder().url(redis.uri()).keyPrefix(prefix).build();
    }

    private Sluice engine(int eventLogSize) {
        return RedisSluice.builder()
                .url(redis.uri())
                .keyPrefix(prefix)
                .eventLogSize(eventLogSize)
                .build();
    }

    private static ConditionFactory eventually() {
        return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5));
    }

    private RedisCommands<byte[], byte[]> redis() {
        return raw.sync();
    }

    private byte[] key(String suffix) {
        return (prefix + ":queue:{jobs}" + suffix).getBytes(StandardCharsets.UTF_8);
    }

    private static JobOptions id(String id) {
        return JobOptions.builder().jobId(id).build();
    }

    @Test
    void aJobAddedByOneProcessAndCompletedByAnotherIsHeardByBothAsItWasAtEachEvent() throws Exception {
        try (Sluice a = engine();
                Sluice b = engine()) {
            JobQueue<String> queueA = a.queue("jobs", Codec.utf8());
            JobQueue<String> queueB = b.queue("jobs", Codec.utf8());
            Events heardByA = new Events();
            Events heardByB = new Events();
            queueA.addListener(heardByA);
            queueB.addListener(heardByB);

            queueA.add("n", "p", id("j"));
            assertThat(queueB.worker(ctx -> Result.done("ok " + ctx.payload()), WorkerOptions.manual())
                            .runDue())
                    .isEqualTo(1);

            List<String> expected = List.of("added j", "active j", "completed j", "drained");
            // B's own events are told in their place, behind A's add, which B's reader fills in
            assertThat(queueB.awaitListeners(Duration.ofSeconds(10))).isTrue();
            assertThat(heardByB.log).containsExactlyElementsOf(expected);
            eventually().until(() -> heardByA.log.size() == expected.size());
            assertThat(heardByA.log).containsExactlyElementsOf(expected);

            Job<String> added = heardByA.snapshots.get(0);
            assertThat(added.state()).isEqualTo(JobState.WAITING);
            assertThat(added.payload()).isEqualTo("p");
            Job<String> active = heardByA.snapshots.get(1);
            assertThat(active.state()).isEqualTo(JobState.ACTIVE);
            assertThat(active.startedAt()).isNotNull();
            assertThat(active.attemptsMade()).isZero();
            Job<String> completed = heardByA.snapshots.get(2);
            assertThat(completed.state()).isEqualTo(JobState.COMPLETED);
            assertThat(completed.result()).isEqualTo("ok p");
            assertThat(completed.attemptsMade()).isEqualTo(1);
            assertThat(completed.finishedAt())
                    .isEqualTo(queueA.job("j").orElseThrow().finishedAt());
            // what B built from its replies and what A rebuilt from the stream are the same snapshots
            assertThat(heardByA.snapshots).isEqualTo(heardByB.snapshots);
        }
    }

    @Test
    void eventsOfAnotherProcessCarryWhatEachKindTells() {
        try (Sluice a = engine();
                Sluice b = engine()) {
            JobQueue<String> queueA = a.queue("jobs", Codec.utf8());
            JobQueue<String> queueB = b.queue("jobs", Codec.utf8());
            Events heard = new Events();
            queueA.addListener(heard);
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            queueA.addListener(new QueueListener<>() {
                @Override
                public void onRetrying(Job<String> job, Throwable error, Duration delay) {
                    errors.add(error);
                }
            });
            queueB.add(
                    "n",
                    "p",
                    JobOptions.builder()
                            .jobId("boom")
                            .attempts(2)
                            .backoff(Backoff.fixed(Duration.ofSeconds(7)))
                            .build());
            queueB.add(
                    "n", "p", JobOptions.builder().jobId("limited").group("g").build());
            queueB.add("n", "p", id("later"));
            Worker<String> worker = queueB.worker(
                    ctx -> switch (ctx.job().id()) {
                        case "boom" -> {
                            ctx.progress(30);
                            throw new IllegalStateException("it broke");
                        }
                        case "limited" -> Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(5));
                        default -> Result.runAgainAfter(Duration.ofMillis(1_500));
                    },
                    WorkerOptions.manual());
            assertThat(worker.runDue()).isEqualTo(3);

            eventually().until(() -> heard.log.stream().anyMatch(e -> e.startsWith("rescheduled")));
            assertThat(heard.log)
                    .contains(
                            "progress boom 30",
                            "retrying boom it broke PT7S",
                            "rate-limited limited GROUP PT5S",
                            "rescheduled later PT1.5S");
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0)).hasMessage("it broke");
            assertThat(errors.get(0).toString()).isEqualTo("java.lang.IllegalStateException: it broke");
            Job<String> retrying = heard.snapshotOf("retrying boom it broke PT7S");
            assertThat(retrying.state()).isEqualTo(JobState.DELAYED);
            assertThat(retrying.attemptsMade()).isEqualTo(1);
            assertThat(retrying.attempts().get(0).error()).isEqualTo("it broke");
        }
    }

    @Test
    void everyProcessHearsTheEventsOfAllInTheOrderRedisRanThem() {
        int producers = 2;
        int perProducer = 100;
        try (Sluice a = engine();
                Sluice b = engine()) {
            List<JobQueue<String>> queues = List.of(a.queue("jobs", Codec.utf8()), b.queue("jobs", Codec.utf8()));
            List<Events> heard = List.of(new Events(), new Events());
            for (int p = 0; p < 2; p++) {
                queues.get(p).addListener(heard.get(p));
                queues.get(p)
                        .worker(
                                ctx -> {
                                    ctx.progress(50);
                                    return Result.done();
                                },
                                WorkerOptions.concurrency(3));
            }
            List<CompletableFuture<Void>> adding = new ArrayList<>();
            for (int p = 0; p < 2 * producers; p++) {
                JobQueue<String> queue = queues.get(p % 2);
                String name = "p" + p + "-";
                adding.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        queue.add("n", "p", id(name + i));
                    }
                }));
            }
            adding.forEach(CompletableFuture::join);
            int jobs = 2 * producers * perProducer;
            for (Events events : heard) {
                eventually()
                        .until(() -> events.log.stream()
                                        .filter(e -> e.startsWith("completed"))
                                        .count()
                                == jobs);
            }

            List<String> inRedis = new ArrayList<>();
            List<List<Object>> events = new ArrayList<>();
            for (StreamMessage<byte[], byte[]> entry :
                    redis().xrange(key(":ev"), io.lettuce.core.Range.create("-", "+"))) {
                for (byte[] packed : QueueEvents.eventsOf(entry)) {
                    events.add(Replies.list(MessagePack.decode(packed)));
                }
            }
            for (List<Object> event : events) {
                String kind = Replies.text(event.get(0));
                if (kind.equals("drained")) {
                    inRedis.add(kind);
                } else if (!kind.equals("removed")) {
                    String id = Replies.text(event.get(1));
                    inRedis.add(kind.equals("progress") ? "progress " + id + " 50" : kind + " " + id);
                }
            }
            assertThat(inRedis).hasSizeGreaterThanOrEqualTo(4 * jobs);
            assertThat(heard.get(0).log).as("heard by A").isEqualTo(inRedis);
            assertThat(heard.get(1).log).as("heard by B").isEqualTo(inRedis);
        }
    }

    @Test
    void aListenerThatFallsBehindIsToldHowManyItMissedThenGoesOnFromTheOldestKept() throws Exception {
        int more = 1_000;
        try (Sluice a = engine(100);
                Sluice b = engine()) {
            JobQueue<String> queueA = a.queue("jobs", Codec.utf8());
            JobQueue<String> queueB = b.queue("jobs", Codec.utf8());
            CountDownLatch stuck = new CountDownLatch(1);
            CountDownLatch goOn = new CountDownLatch(1);
            Events heard = new Events() {
                @Override
                public void onAdded(Job<String> job) {
                    super.onAdded(job);
                    if (job.id().equals("0")) {
                        stuck.countDown();
                        try {
                            goOn.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            };
            queueA.addListener(heard);

            queueB.add("n", "p", id("0"));
            assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
            List<NewJob<String>> jobs = new ArrayList<>();
            for (int i = 1; i <= more; i++) {
                jobs.add(new NewJob<>("n", "p", id(Integer.toString(i))));
                if (jobs.size() == 100) {
                    queueB.addBulk(jobs);
                    jobs.clear();
                }
            }
            long kept = 0;
            for (StreamMessage<byte[], byte[]> entry :
                    redis().xrange(key(":ev"), io.lettuce.core.Range.create("-", "+"))) {
                kept += QueueEvents.eventsOf(entry).size();
            }
            goOn.countDown();

            eventually().until(() -> heard.log.contains("added " + more));
            assertThat(heard.log.get(0)).isEqualTo("added 0");
            assertThat(heard.log.get(1)).startsWith("missed ");
            long missed = Long.parseLong(heard.log.get(1).substring("missed ".length()));
            assertThat(missed).isPositive();
            List<String> after = heard.log.subList(2, heard.log.size());
            assertThat(after).hasSize((int) (more - missed));
            for (int i = 0; i < after.size(); i++) {
                assertThat(after.get(i)).isEqualTo("added " + (missed + 1 + i));
            }
            assertThat(kept).as("events Redis kept: about the log size").isBetween(100L, 300L);
            assertThat(after.size()).isLessThanOrEqualTo((int) kept);
        }
    }

    @Test
    void nothingIsWrittenWhileNobodyListens() {
        try (Sluice a = engine();
                Sluice b = engine()) {
            JobQueue<String> queueA = a.queue("jobs", Codec.utf8());
            queueA.add("n", "p", id("1"));
            queueA.worker(ctx -> Result.done(), WorkerOptions.manual()).runDue();
            queueA.add("n", "p", id("2"));
            assertThat(redis().exists(key(":ev"), key(":listening"))).isZero();
            assertThat(redis().hget(key(":m"), "ev".getBytes(StandardCharsets.UTF_8)))
                    .as("the events were numbered all the same")
                    .isEqualTo("5".getBytes(StandardCharsets.UTF_8));

            b.queue("jobs", Codec.utf8()).addListener(new Events());
            queueA.add("n", "p", id("3"));
            assertThat(redis().xlen(key(":ev")))
                    .as("once another process listens")
                    .isEqualTo(1);
        }
    }

    @Test
    void whenFinishedHearsAnotherProcesssCompletionWithoutAskingRedisAgain() throws Exception {
        try (Sluice a = engine();
                Sluice b = engine()) {
            JobQueue<String> queueA = a.queue("jobs", Codec.utf8());
            JobQueue<String> queueB = b.queue("jobs", Codec.utf8());
            queueB.add("n", "p", id("j"));
            CompletableFuture<Job<String>> outcome = queueA.whenFinished("j");
            long before = queueCalls();

            int looks = 3_000; // B's own calls, long enough for any poll of A's to show
            for (int i = 0; i < looks; i++) {
                queueB.counts();
            }
            assertThat(outcome).isNotDone();
            assertThat(queueB.worker(ctx -> Result.done("done"), WorkerOptions.manual())
                            .runDue())
                    .isEqualTo(1);

            Job<String> done = outcome.get(10, TimeUnit.SECONDS);
            assertThat(done.state()).isEqualTo(JobState.COMPLETED);
            assertThat(done.result()).isEqualTo("done");
            assertThat(done.payload()).isEqualTo("p");
            assertThat(queueCalls() - before)
                    .as(
                            "calls of the queue library: B's looks, claim and finish, its worker's hello and bye, none of A's")
                    .isEqualTo(looks + 4);
        }
    }

    /** How many calls of the queue library (FCALL) Redis ran so far. */
    /** Calls of the queue library's functions, read-only ones ({@code FCALL_RO}) included. */
    private long queueCalls() {
        String info = redis().info("commandstats");
        Matcher calls = Pattern.compile("cmdstat_fcall(?:_ro)?:calls=(\\d+)").matcher(info);
        long sum = 0;
        while (calls.find()) {
            sum += Long.parseLong(calls.group(1));
        }
        return sum;
    }

    @Test
    void theReaderStopsSoonAfterTheLastListenerGoesAndWhenTheEngineCloses() {
        try (Sluice a = engine()) {
            RedisJobQueue<String> queue = (RedisJobQueue<String>) a.queue("jobs", Codec.utf8());
            Events events = new Events();
            queue.addListener(events);
            assertThat(queue.eventThreadsAlive()).isTrue();
            assertThat(queue.removeListener(events)).isTrue();
            eventually().until(() -> !queue.eventThreadsAlive());

            queue.addListener(events);
            assertThat(queue.eventThreadsAlive()).isTrue();
            a.close();
            eventually().until(() -> !queue.eventThreadsAlive());
        }
    }
}
