package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Sentinel failover of a Redis queue whose adds and endings wait for a replica ({@code waitForReplicas(1, ...)}):
 * the master is killed while the replicas read nothing of what it writes, one replica is promoted, and producers and
 * the worker go on through Sentinel by themselves. Every acknowledged job survives and is completed once.
 *
 * <p>Why the replicas are frozen (SIGSTOP) before the kill: on one machine a replica has each write within
 * microseconds, so a failover would lose nothing with or without the wait. Frozen, they keep what the kernel
 * buffered for them (a few MB) and lose the rest: adds of 16 MB made meanwhile are acknowledged and lost without the
 * wait, and not acknowledged with it.
 */
@Tag("slow")
class RedisQueueFailoverTest {
    private static final int BIG_JOBS = 40;
    private static final String BIG_PAYLOAD = "x".repeat(400_000);

    @Test
    void everyAcknowledgedJobSurvivesAFailoverAndCompletesOnce(@TempDir Path dir) throws Exception {
        String noSyncDelay = "--repl-diskless-sync-delay";
        try (RedisServer master = RedisServer.start(noSyncDelay, "0");
                RedisServer replica1 = RedisServer.start(noSyncDelay, "0", "--replicaof", "127.0.0.1", port(master));
                RedisServer replica2 = RedisServer.start(noSyncDelay, "0", "--replicaof", "127.0.0.1", port(master))) {
            Replication.awaitLinked(replica1);
            Replication.awaitLinked(replica2);
            try (Sentinel sentinel = Sentinel.start(
                            dir,
                            master,
                            "sentinel down-after-milliseconds limits 500\nsentinel failover-timeout limits 5000\n");
                    Sluice sluice = RedisSentinelTest.connectOnceReady(
                            sentinel.url(),
                            builder -> builder.keyPrefix("failover")
                                    .commandTimeout(Duration.ofSeconds(1))
                                    .retryInterval(Duration.ofMillis(200))
                                    .waitForReplicas(1, Duration.ofMillis(300)))) {
                JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
                Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
                Worker<String> worker = queue.worker(
                        ctx -> {
                            String payload = ctx.payload();
                            runs.computeIfAbsent(payload.length() > 100 ? "big" : payload, id -> new AtomicInteger())
                                    .incrementAndGet();
                            Thread.sleep(10);
                            return Result.done();
                        },
                        WorkerOptions.builder()
                                .concurrency(4)
                                .leaseTime(Duration.ofSeconds(5))
                                .build());
                List<RetryingProducer> producers = RetryingProducer.start(queue, "a", "b");
                await("jobs added and completed before the failover")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> runs.size() >= 30);

                List<String> bigIds = new ArrayList<>();
                List<String> bigAcknowledged = new ArrayList<>();
                Replication.Frozen frozen1 = Replication.freeze(replica1);
                Replication.Frozen frozen2 = Replication.freeze(replica2);
                try {
                    List<CompletableFuture<Added<String>>> bigAdds = new ArrayList<>();
                    for (int i = 0; i < BIG_JOBS; i++) {
                        String id = "big-" + i;
                        bigIds.add(id);
                        bigAdds.add(queue.addAsync(
                                "n", BIG_PAYLOAD, JobOptions.builder().jobId(id).build()));
                    }
                    for (int i = 0; i < BIG_JOBS; i++) {
                        try {
                            bigAdds.get(i).get();
                            bigAcknowledged.add(bigIds.get(i));
                        } catch (java.util.concurrent.ExecutionException e) {
                            assertThat(e.getCause()).isInstanceOf(ReplicaWaitException.class);
                        }
                    }
                    master.kill();
                } finally {
                    frozen1.close();
                    frozen2.close();
                }
                assertThat(bigAcknowledged)
                        .as("adds acknowledged while no replica read anything")
                        .isEmpty();

                await("a replica promoted by Sentinel")
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() ->
                                sentinel.masterPort() == replica1.port() || sentinel.masterPort() == replica2.port());
                long promoted = System.nanoTime();
                for (String id : bigIds) {
                    if (bigAcknowledged.contains(id)) {
                        continue;
                    }
                    await("big job " + id + " added again after the failover")
                            .atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(50))
                            .ignoreExceptionsInstanceOf(SluiceException.class)
                            .until(() -> queue.add(
                                            "n",
                                            BIG_PAYLOAD,
                                            JobOptions.builder().jobId(id).build())
                                    != null);
                }
                await("every producer's adds acknowledged after the failover")
                        .atMost(Duration.ofSeconds(20))
                        .until(() -> producers.stream().allMatch(p -> p.acknowledgedAfter(promoted) >= 20));
                RetryingProducer.stop(producers);

                List<String> acknowledged = RetryingProducer.all(producers, p -> p.acknowledged);
                acknowledged.addAll(bigIds);
                AcknowledgedJobs.awaitDone(queue, Duration.ofSeconds(30));
                worker.close(Duration.ofSeconds(5));
                AcknowledgedJobs.assertEachCompletedOnce(queue, acknowledged);
                System.out.printf(
                        "failover test: %d jobs acknowledged, %d adds refused, %d jobs with more than one attempt%n",
                        acknowledged.size(),
                        RetryingProducer.all(producers, p -> p.failures).size(),
                        AcknowledgedJobs.withMoreThanOneAttempt(queue, acknowledged));
            }
        }
    }

    private static String port(RedisServer server) {
        return Integer.toString(server.port());
    }
}
