package dev.sluice.demo;

import static dev.sluice.demo.CommandRuns.fields;
import static dev.sluice.demo.CommandRuns.ids;
import static dev.sluice.demo.CommandRuns.listed;
import static dev.sluice.demo.CommandRuns.on;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.Sluice;
import dev.sluice.demo.CommandRuns.Ran;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every command that looks after queues, on a real Redis: the queues are set up by an engine of this test, the
 * commands run in-process as {@code ./sluice} would run them (an engine of their own each), and each command's JSON
 * and its effect on the queue are checked.
 */
class AdminCommandsOnRedisTest {
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final RedisServer REDIS = CommandRuns.REDIS;
    private static final JobOptions ONCE = JobOptions.builder().attempts(1).build();

    /** The fields of a job as {@code jobs} prints it, which {@code job} begins with. */
    private static final String SUMMARY =
            "id,name,group,state,attemptsMade,createdAt,runAt,startedAt,finishedAt,failureReason";

    private Sluice engine;

    private static void await(Callable<Boolean> condition) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(condition);
    }

    @BeforeEach
    void connect() {
        engine = RedisSluice.builder().url(REDIS.uri()).build();
    }

    @AfterEach
    void close() {
        engine.close();
    }

    /** A new queue of the test's engine, of UTF-8 text. */
    private JobQueue<String> newQueue() {
        return engine.queue("admin-" + QUEUES.incrementAndGet(), Codec.utf8());
    }

    /** One attempt, id {@code id}, in {@code group} (null: ungrouped). */
    private static JobOptions once(String id, String group) {
        JobOptions.Builder options = ONCE.toBuilder().jobId(id);
        return (group == null ? options : options.group(group)).build();
    }

    /** Runs the queue's jobs until {@code done} holds: those whose payload starts with "bad" fail, once. */
    private static void runJobs(JobQueue<String> queue, Callable<Boolean> done) {
        Worker<String> worker = queue.worker(
                ctx -> {
                    if (ctx.job().payload().startsWith("bad")) {
                        throw new IllegalStateException("card declined");
                    }
                    return Result.done("charged " + ctx.job().payload());
                },
                WorkerOptions.concurrency(2));
        try {
            await(done);
        } finally {
            worker.close(Duration.ofSeconds(10));
        }
    }

    @Test
    void failedJobsAreListedShownAndRetried() throws Exception {
        JobQueue<String> queue = newQueue();
        String q = queue.name();
        queue.add("charge", "bad-0", once("bad-0", "beta"));
        queue.add("charge", "bad-1", once("bad-1", "acme"));
        queue.add("charge", "bad-2", once("bad-2", "acme"));
        queue.add("charge", "good", once("good", "acme"));
        runJobs(queue, () -> queue.counts().equals(new JobCounts(0, 0, 0, 1, 3)));

        List<JsonNode> failed = on(q, "jobs", "--state", "failed").lines();
        assertThat(ids(failed)).containsExactlyInAnyOrder("bad-0", "bad-1", "bad-2");
        for (JsonNode job : failed) {
            assertThat(fields(job)).isEqualTo(SUMMARY);
            assertThat(job.get("name").asText()).isEqualTo("charge");
            assertThat(job.get("state").asText()).isEqualTo("failed");
            assertThat(job.get("attemptsMade").asInt()).isEqualTo(1);
            assertThat(job.get("failureReason").asText()).isEqualTo("card declined");
            assertThat(job.get("runAt").isNull()).isTrue();
            assertThat(Instant.parse(job.get("finishedAt").asText()))
                    .isAfterOrEqualTo(Instant.parse(job.get("startedAt").asText()))
                    .isAfterOrEqualTo(Instant.parse(job.get("createdAt").asText()));
        }
        assertThat(ids(on(q, "jobs", "--state", "failed", "--group", "acme").lines()))
                .containsExactlyInAnyOrder("bad-1", "bad-2");
        List<String> first = ids(on(q, "jobs", "--state", "failed", "--group", "acme", "--limit", "1")
                .lines());
        List<String> second = ids(on(q, "jobs", "--state", "failed", "--group", "acme", "--offset", "1")
                .lines());
        assertThat(first).hasSize(1);
        assertThat(second).hasSize(1).doesNotContainAnyElementsOf(first);
        assertThat(on(q, "jobs", "--state", "failed", "--group", "nobody").lines())
                .isEmpty();
        assertThat(ids(on(q, "jobs", "--state", "FAILED", "--offset", "2", "--limit", "5")
                        .lines()))
                .containsExactly(ids(failed).get(2));
        JsonNode completed = on(q, "jobs", "--state", "completed").json();
        assertThat(completed.get("id").asText()).isEqualTo("good");
        assertThat(completed.get("failureReason").isNull()).isTrue();

        JsonNode bad = on(q, "job", "bad-0").json();
        assertThat(fields(bad))
                .isEqualTo(SUMMARY + ",options,progress,rateLimits,attempts,failure,result,resultEncoding,payload,"
                        + "payloadEncoding");
        assertThat(fields(bad.get("options")))
                .isEqualTo("priority,attempts,delayMs,timeoutMs,backoff,keepCompleted,keepFailed,deduplicateForMs,"
                        + "maxRateLimits");
        assertThat(bad.get("group").asText()).isEqualTo("beta");
        assertThat(bad.get("state").asText()).isEqualTo("failed");
        assertThat(bad.at("/options/attempts").asInt()).isEqualTo(1);
        assertThat(bad.at("/options/priority").asInt()).isZero();
        assertThat(bad.at("/options/delayMs").asDouble()).isZero();
        assertThat(bad.at("/options/timeoutMs").isNull()).isTrue();
        assertThat(bad.get("attempts")).hasSize(1);
        assertThat(bad.at("/attempts/0/number").asInt()).isEqualTo(1);
        assertThat(bad.at("/attempts/0/outcome").asText()).isEqualTo("failed");
        assertThat(bad.at("/attempts/0/error").asText()).contains("card declined");
        assertThat(bad.at("/failure/reason").asText()).isEqualTo("card declined");
        assertThat(bad.at("/failure/exceptionClass").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(bad.at("/failure/stackTrace").asText()).contains("card declined", "AdminCommandsOnRedisTest");
        assertThat(bad.get("payload").asText()).isEqualTo("bad-0");
        assertThat(bad.get("payloadEncoding").asText()).isEqualTo("utf-8");
        assertThat(bad.get("result").isNull()).isTrue();
        assertThat(bad.get("resultEncoding").isNull()).isTrue();
        JsonNode good = on(q, "job", "good").json();
        assertThat(good.get("state").asText()).isEqualTo("completed");
        assertThat(good.get("result").asText()).isEqualTo("charged good");
        assertThat(good.get("resultEncoding").asText()).isEqualTo("utf-8");
        assertThat(good.get("failure").isNull()).isTrue();
        assertThat(good.at("/attempts/0/outcome").asText()).isEqualTo("completed");
        on(q, "job", "missing").failsWith("job 'missing' of queue '" + q + "' does not exist");

        Ran notFailed = on(q, "retry", "good");
        assertThat(notFailed.status()).isEqualTo(Main.FAILURE);
        assertThat(notFailed.err()).startsWith("sluice: ").contains("good").hasLineCount(1);
        assertThat(queue.job("good").orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        on(q, "retry", "nope").failsWith(new JobNotFoundException(q, "nope").getMessage());

        assertThat(on(q, "retry", "bad-0").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"id\":\"bad-0\",\"retried\":true}");
        assertThat(queue.job("bad-0").orElseThrow().state()).isEqualTo(JobState.WAITING);
        assertThat(on(q, "retry", "bad-0").status()).as("no longer failed").isEqualTo(Main.FAILURE);
        assertThat(on(q, "retry", "--all-failed").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"retried\":2}");
        assertThat(queue.counts()).isEqualTo(new JobCounts(3, 0, 0, 1, 0));
        assertThat(on(q, "retry", "good", "--completed").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"id\":\"good\",\"retried\":true}");
        assertThat(queue.counts()).isEqualTo(new JobCounts(4, 0, 0, 0, 0));
    }

    @Test
    void delayedJobsArePromotedAndJobsRemovedAndDrained() throws Exception {
        JobQueue<String> queue = newQueue();
        String q = queue.name();
        for (String id : List.of("d0", "d1", "d2")) {
            queue.add(
                    "later",
                    "x",
                    JobOptions.builder()
                            .jobId(id)
                            .delay(Duration.ofHours(1))
                            .priority(7)
                            .build());
        }
        queue.add("now", "y", JobOptions.builder().jobId("w0").build());
        queue.add("now", "y", JobOptions.builder().jobId("w1").build());

        List<JsonNode> delayed = on(q, "jobs", "--state", "delayed").lines();
        assertThat(ids(delayed)).containsExactlyInAnyOrder("d0", "d1", "d2");
        for (JsonNode job : delayed) {
            assertThat(Instant.parse(job.get("runAt").asText()))
                    .isAfter(Instant.parse(job.get("createdAt").asText()).plus(Duration.ofMinutes(59)));
        }
        JsonNode d0 = on(q, "job", "d0").json();
        assertThat(d0.at("/options/delayMs").asDouble()).isEqualTo(3_600_000.0);
        assertThat(d0.at("/options/priority").asInt()).isEqualTo(7);
        assertThat(d0.get("attempts")).isEmpty();

        assertThat(on(q, "promote", "d0").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"id\":\"d0\",\"promoted\":true}");
        assertThat(queue.job("d0").orElseThrow().state()).isEqualTo(JobState.WAITING);
        Ran again = on(q, "promote", "d0");
        assertThat(again.status()).as("no longer delayed").isEqualTo(Main.FAILURE);
        assertThat(again.err()).contains("d0").hasLineCount(1);
        on(q, "promote", "nope").failsWith(new JobNotFoundException(q, "nope").getMessage());

        assertThat(on(q, "remove", "d1").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"id\":\"d1\",\"removed\":true}");
        assertThat(queue.job("d1")).isEmpty();
        on(q, "remove", "d1").failsWith("job 'd1' of queue '" + q + "' does not exist");

        assertThat(on(q, "drain").json().toString()).isEqualTo("{\"queue\":\"" + q + "\",\"removed\":3}");
        assertThat(queue.counts()).isEqualTo(new JobCounts(0, 1, 0, 0, 0));
        assertThat(on(q, "drain", "--delayed").json().toString()).isEqualTo("{\"queue\":\"" + q + "\",\"removed\":1}");
        assertThat(queue.counts().total()).isZero();
    }

    @Test
    void payloadsAndResultsThatAreNotUtf8AreShownInBase64() throws Exception {
        JobQueue<byte[]> queue = engine.queue("admin-" + QUEUES.incrementAndGet(), Codec.bytes());
        byte[] binary = {(byte) 0xff, (byte) 0xfe, 0, 'A'};
        queue.add("blob", binary, JobOptions.builder().jobId("b").build());
        queue.add(
                "blob",
                "héllo".getBytes(StandardCharsets.UTF_8),
                JobOptions.builder().jobId("t").build());
        JsonNode b = on(queue.name(), "job", "b").json();
        assertThat(b.get("payload").asText()).isEqualTo(Base64.getEncoder().encodeToString(binary));
        assertThat(b.get("payloadEncoding").asText()).isEqualTo("base64");
        JsonNode t = on(queue.name(), "job", "t").json();
        assertThat(t.get("payload").asText()).isEqualTo("héllo");
        assertThat(t.get("payloadEncoding").asText()).isEqualTo("utf-8");
        assertThat(ids(on(queue.name(), "jobs", "--state", "waiting").lines())).containsExactly("b", "t");
    }

    @Test
    void queuesAndGroupsArePausedAndResumedAndGroupsListed() throws Exception {
        JobQueue<String> queue = newQueue();
        String q = queue.name();
        queue.add("charge", "a1", once("a1", "acme"));
        queue.add("charge", "a2", once("a2", "acme"));
        queue.add("charge", "b1", once("b1", "beta"));
        queue.add("charge", "u1", once("u1", null));
        GroupLimits beta = GroupLimits.builder()
                .concurrency(2)
                .rate(SlidingWindowLog.of(5, Duration.ofSeconds(1)))
                .build();
        queue.setGroupLimits("beta", beta);

        assertThat(on(q, "pause").json().toString()).isEqualTo("{\"queue\":\"" + q + "\",\"paused\":true}");
        assertThat(queue.isPaused()).isTrue();
        assertThat(on(q, "stats").json().get("paused").asBoolean()).isTrue();
        assertThat(listed(q).get("paused").asBoolean()).isTrue();
        assertThat(on(q, "pause", "--group", "acme").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"group\":\"acme\",\"paused\":true}");

        List<JsonNode> groups = on(q, "groups").lines();
        assertThat(groups).hasSize(2);
        assertThat(groups.get(0).toString())
                .isEqualTo("{\"name\":\"acme\",\"waiting\":2,\"delayed\":0,\"active\":0,\"paused\":true,"
                        + "\"pausedUntil\":null,\"limits\":{\"concurrency\":null,\"maxQueued\":null,\"rate\":null},"
                        + "\"ownLimits\":false}");
        assertThat(groups.get(1).toString())
                .isEqualTo("{\"name\":\"beta\",\"waiting\":1,\"delayed\":0,\"active\":0,\"paused\":false,"
                        + "\"pausedUntil\":null,\"limits\":{\"concurrency\":2,\"maxQueued\":null,\"rate\":\""
                        + beta.rate() + "\"},\"ownLimits\":true}");
        assertThat(names(on(q, "groups", "--prefix", "b"))).containsExactly("beta");
        assertThat(names(on(q, "groups", "--after", "acme"))).containsExactly("beta");
        assertThat(names(on(q, "groups", "--limit", "1"))).containsExactly("acme");
        assertThat(names(on(q, "groups", "--prefix", "zz"))).isEmpty();

        assertThat(on(q, "resume").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"paused\":false,\"wasPaused\":true}");
        assertThat(queue.isPaused()).isFalse();
        assertThat(on(q, "resume").json().get("wasPaused").asBoolean()).isFalse();
        // the queue runs again, but not group acme: its jobs wait while the others are done
        runJobs(queue, () -> queue.counts().completed() == 2);
        assertThat(queue.job("a1").orElseThrow().state()).isEqualTo(JobState.WAITING);
        assertThat(on(q, "groups", "--limit", "1").json().get("waiting").asLong())
                .isEqualTo(2);

        assertThat(on(q, "resume", "--group", "acme").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"group\":\"acme\",\"paused\":false,\"wasPaused\":true}");
        assertThat(on(q, "resume", "--group", "acme").json().get("wasPaused").asBoolean())
                .isFalse();
        runJobs(queue, () -> queue.counts().completed() == 4);
    }

    private static List<String> names(Ran groups) {
        return groups.lines().stream().map(line -> line.get("name").asText()).toList();
    }

    @Test
    void cleanRemovesFinishedJobsOlderThanItIsTold() throws Exception {
        JobQueue<String> queue = newQueue();
        String q = queue.name();
        for (String payload : List.of("ok-0", "ok-1", "ok-2", "bad-0", "bad-1")) {
            queue.add("charge", payload, once(payload, null));
        }
        runJobs(queue, () -> queue.counts().equals(new JobCounts(0, 0, 0, 3, 2)));

        assertThat(on(q, "clean", "--state", "completed", "--older-than", "1h")
                        .json()
                        .toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"removed\":0}");
        assertThat(on(q, "clean", "--state", "completed").json().toString())
                .isEqualTo("{\"queue\":\"" + q + "\",\"removed\":3}");
        assertThat(queue.counts()).isEqualTo(new JobCounts(0, 0, 0, 0, 2));
        assertThat(on(q, "clean", "--state", "failed", "--older-than", "0")
                        .json()
                        .get("removed")
                        .asInt())
                .isEqualTo(2);
        assertThat(queue.counts().total()).isZero();
    }

    @Test
    void statsWorkersAndQueuesDescribeARunningQueueThatObliterateRemoves() throws Exception {
        JobQueue<String> queue = newQueue();
        String q = queue.name();
        for (int i = 0; i < 20; i++) {
            queue.add("charge", "ok", once("j" + i, "g" + i % 2));
        }
        Worker<String> worker = queue.worker(ctx -> Result.done(), WorkerOptions.concurrency(3));
        try {
            await(() -> queue.counts().completed() == 20);
            // a worker writes its measures within a second, and before its own process reads statistics
            assertThat(queue.stats().processingTime().count()).isEqualTo(20);

            JsonNode stats = on(q, "stats").json();
            assertThat(fields(stats))
                    .isEqualTo(
                            "queue,paused,counts,totals,completedPerSecond,waitTime,processingTime,ungrouped,groups");
            assertThat(stats.get("paused").asBoolean()).isFalse();
            assertThat(stats.get("completedPerSecond").asDouble()).isPositive();
            for (String latency : List.of("waitTime", "processingTime")) {
                JsonNode times = stats.get(latency);
                assertThat(fields(times)).isEqualTo("count,p50Ms,p90Ms,p99Ms,maxMs");
                assertThat(times.get("count").asLong()).as(latency).isEqualTo(20);
                assertThat(times.get("p50Ms").asDouble()).isNotNegative();
                assertThat(times.get("p90Ms").asDouble())
                        .isGreaterThanOrEqualTo(times.get("p50Ms").asDouble());
                assertThat(times.get("maxMs").asDouble())
                        .isGreaterThanOrEqualTo(times.get("p99Ms").asDouble());
                assertThat(stats.at("/groups/g0/" + latency + "/count").asLong())
                        .isEqualTo(10);
            }
            assertThat(stats.at("/groups/g1/completedPerSecond").asDouble()).isPositive();
            assertThat(stats.at("/ungrouped/waitTime/count").asLong()).isZero();

            await(() -> !on(q, "workers").out().isEmpty());
            JsonNode attached = on(q, "workers").json();
            assertThat(fields(attached)).isEqualTo("id,host,pid,concurrency,busy,running,startedAt,lastSeen,leaseEnds");
            assertThat(attached.get("pid").asLong())
                    .isEqualTo(ProcessHandle.current().pid());
            assertThat(attached.get("concurrency").asInt()).isEqualTo(3);
            assertThat(attached.get("busy").asInt()).isZero();
            assertThat(attached.get("running")).isEmpty();
            assertThat(Instant.parse(attached.get("lastSeen").asText()))
                    .isAfterOrEqualTo(Instant.parse(attached.get("startedAt").asText()));

            JsonNode line = listed(q);
            assertThat(line.toString())
                    .isEqualTo("{\"name\":\"" + q + "\",\"paused\":false,\"counts\":{\"waiting\":0,\"delayed\":0,"
                            + "\"active\":0,\"completed\":20,\"failed\":0},\"workers\":1,\"busy\":0}");

            Ran refused = on(q, "obliterate");
            assertThat(refused.status()).isEqualTo(Main.FAILURE);
            assertThat(refused.err())
                    .startsWith("sluice: ")
                    .contains(q, "attached")
                    .hasLineCount(1);
            assertThat(refused.out()).isEmpty();
            assertThat(listed(q)).as("still there").isNotNull();
            assertThat(queue.counts().completed()).isEqualTo(20);

            assertThat(on(q, "obliterate", "--force").json().toString())
                    .isEqualTo("{\"queue\":\"" + q + "\",\"obliterated\":true}");
            assertThat(listed(q)).isNull();
        } finally {
            worker.close(Duration.ZERO);
        }
    }
}
