package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code waitForReplicas}: an add returns once the replicas have the job, throws {@link ReplicaWaitException}
 * naming how many acknowledged it when too few do, and a worker whose ending too few acknowledge goes on.
 */
@Tag("slow")
class RedisReplicaWaitTest {
    private static JobOptions id(String id) {
        return JobOptions.builder().jobId(id).build();
    }

    /** An engine on {@code master} whose adds and endings wait up to {@code timeout} for 1 replica. */
    private static Sluice waitingFor1Replica(RedisServer master, Duration timeout) {
        return RedisSluice.builder()
                .url(master.uri())
                .commandTimeout(Duration.ofSeconds(1))
                .waitForReplicas(1, timeout)
                .build();
    }

    @Test
    void refusesBadArgumentsNamingThem() {
        assertThatThrownBy(() -> RedisSluice.builder().waitForReplicas(0, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waitForReplicas needs at least 1 replica, was 0");
        assertThatThrownBy(() -> RedisSluice.builder().waitForReplicas(-2, Duration.ofMillis(100)))
                .hasMessage("waitForReplicas needs at least 1 replica, was -2");
        assertThatThrownBy(() -> RedisSluice.builder().waitForReplicas(1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("waitForReplicas timeout must be at least 1 ms, was null");
        for (Duration tooShort : List.of(Duration.ZERO, Duration.ofMillis(-5), Duration.ofNanos(999_999))) {
            assertThatThrownBy(() -> RedisSluice.builder().waitForReplicas(1, tooShort))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("waitForReplicas timeout must be at least 1 ms, was ");
        }

        assertThatThrownBy(() -> RedisSluice.builder()
                        .url("redis://127.0.0.1:1")
                        .commandTimeout(Duration.ofMillis(500))
                        .waitForReplicas(1, Duration.ofMillis(251))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "waitForReplicas timeout must be at most half the commandTimeout (500 ms)," + " was 251 ms");
        assertThatThrownBy(() -> RedisSluice.builder()
                        .cluster("redis://127.0.0.1:1")
                        .waitForReplicas(1, Duration.ofMillis(100))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("waitForReplicas is for a standalone or Sentinel Redis, not Redis Cluster");
        RedisClusterClient cluster = RedisClusterClient.create("redis://127.0.0.1:1");
        try {
            assertThatThrownBy(() -> RedisSluice.builder()
                            .client(cluster)
                            .waitForReplicas(1, Duration.ofMillis(100))
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("waitForReplicas is for a standalone or Sentinel Redis");
        } finally {
            cluster.shutdown();
        }
    }

    @Test
    void withoutAReplicaAnAddThrowsNamingHowManyAcknowledgedAndTheJobStaysOnTheMaster() throws Exception {
        try (RedisServer master = RedisServer.start();
                Sluice sluice = waitingFor1Replica(master, Duration.ofMillis(100))) {
            JobQueue<String> queue = sluice.queue("q", Codec.utf8());

            assertThatThrownBy(() -> queue.add("n", "p", id("a")))
                    .isInstanceOfSatisfying(ReplicaWaitException.class, e -> {
                        assertThat(e.acknowledged()).isZero();
                        assertThat(e.required()).isEqualTo(1);
                        assertThat(e.jobIds()).containsExactly("a");
                    })
                    .hasMessage("queue 'q': job 'a' is written on the Redis master, but acknowledged by 0 of 1"
                            + " replicas within 100 ms (RedisSluice.builder().waitForReplicas): whether it survives a"
                            + " failover is unknown; adding again with the same job id is safe");
            assertThat(queue.job("a")).get().extracting(j -> j.state()).isEqualTo(JobState.WAITING);

            assertThatThrownBy(() -> queue.add("n", "p", id("a")))
                    .as("adding again: a duplicate, still not on a replica")
                    .isInstanceOf(ReplicaWaitException.class);
            assertThat(queue.counts().waiting()).isEqualTo(1);

            assertThatThrownBy(() -> queue.addBulk(List.of(
                            new NewJob<>("n", "p", id("b1")),
                            new NewJob<>("n", "p", id("b2")),
                            new NewJob<>("n", "p", id("b3")),
                            new NewJob<>("n", "p", id("b4")))))
                    .isInstanceOfSatisfying(
                            ReplicaWaitException.class,
                            e -> assertThat(e.jobIds()).containsExactly("b1", "b2", "b3", "b4"))
                    .hasMessageStartingWith("queue 'q': jobs 'b1', 'b2', 'b3' and 1 more are written on the Redis"
                            + " master, but acknowledged by 0 of 1 replicas within 100 ms");

            CompletableFuture<Added<String>> async = queue.addAsync("n", "p");
            assertThatThrownBy(async::get)
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfSatisfying(
                            ReplicaWaitException.class,
                            e -> assertThat(queue.job(e.jobIds().get(0)))
                                    .as("the id the queue made, named by the exception")
                                    .isPresent());
            assertThat(queue.counts().waiting()).isEqualTo(6);
        }
    }

    @Test
    void aWorkerWhoseEndingsNoReplicaAcknowledgesGoesOn() {
        try (RedisServer master = RedisServer.start();
                Sluice sluice = waitingFor1Replica(master, Duration.ofMillis(20))) {
            JobQueue<String> queue = sluice.queue("q", Codec.utf8());
            for (String id : List.of("a", "b", "c")) {
                assertThatThrownBy(() -> queue.add("n", "p", id(id))).isInstanceOf(ReplicaWaitException.class);
            }
            Worker<String> worker = queue.worker(ctx -> Result.done(), WorkerOptions.concurrency(1));
            await().atMost(Duration.ofSeconds(10)).until(() -> queue.counts().completed() == 3);
            worker.close(Duration.ofSeconds(5));
            for (String id : List.of("a", "b", "c")) {
                assertThat(queue.job(id)).get().extracting(j -> j.state()).isEqualTo(JobState.COMPLETED);
            }
        }
    }

    @Test
    void withAReplicaAnAddReturnsOnlyOnceTheReplicaHasTheJob() throws Exception {
        try (RedisServer master = RedisServer.start("--repl-diskless-sync-delay", "0");
                RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()))) {
            Replication.awaitLinked(replica);
            try (Sluice sluice = RedisSluice.builder()
                    .url(master.uri())
                    .keyPrefix("pair")
                    .commandTimeout(Duration.ofSeconds(10))
                    .waitForReplicas(1, Duration.ofSeconds(5))
                    .build()) {
                JobQueue<String> queue = sluice.queue("q", Codec.utf8());
                assertThat(queue.add("n", "p", id("first")).duplicate()).isFalse();
                assertThat(Replication.holdsJob(replica, "pair", "q", "first")).isTrue();

                CompletableFuture<Added<String>> added;
                Replication.Frozen frozen = Replication.freeze(replica);
                try {
                    added = queue.addAsync("n", "p", id("second"));
                    await().atMost(Duration.ofSeconds(4))
                            .pollInterval(Duration.ofMillis(10))
                            .until(() -> !Replication.clientsInWait(master).isEmpty());
                    assertThat(added)
                            .as("held while the replica does not answer")
                            .isNotDone();
                } finally {
                    frozen.close();
                }
                assertThat(added.get().duplicate()).isFalse();
                assertThat(Replication.holdsJob(replica, "pair", "q", "second")).isTrue();
            }
        }
    }

    /**
     * A WAIT counts the writes of its own connection: once that is lost, no answer can confirm the add, and it ends
     * at once, well before the wait's timeout. With the application's client on Lettuce's defaults, the WAIT would be
     * sent again over the new connection, where it cannot count the old one's writes (after a failover it would count
     * a new master's); the engine's own client fails it when the connection is lost.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(booleans = {false, true})
    void anAddWhoseConnectionIsLostDuringTheWaitEndsAtOnceUnconfirmed(boolean applicationClient) throws Exception {
        try (RedisServer master = RedisServer.start("--repl-diskless-sync-delay", "0");
                RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()))) {
            Replication.awaitLinked(replica);
            RedisClient client = RedisClient.create(master.uri());
            RedisSluice.Builder builder = applicationClient
                    ? RedisSluice.builder().client(client)
                    : RedisSluice.builder().url(master.uri());
            try (Sluice sluice = builder.keyPrefix("lost")
                    .commandTimeout(Duration.ofSeconds(20))
                    .waitForReplicas(1, Duration.ofSeconds(10))
                    .build()) {
                JobQueue<String> queue = sluice.queue("q", Codec.utf8());
                CompletableFuture<Added<String>> added;
                long lostAt;
                Replication.Frozen frozen = Replication.freeze(replica);
                try {
                    added = queue.addAsync("n", "p", id("j"));
                    List<Long> waiting = await().atMost(Duration.ofSeconds(8))
                            .pollInterval(Duration.ofMillis(10))
                            .until(() -> Replication.clientsInWait(master), ids -> !ids.isEmpty());
                    Replication.killClient(master, waiting.get(0));
                    lostAt = System.nanoTime();
                    Throwable failure = catchThrowable(() -> added.get(5, TimeUnit.SECONDS));
                    assertThat(failure).isInstanceOf(ExecutionException.class);
                    assertThat(failure.getCause())
                            .isInstanceOfSatisfying(
                                    ReplicaWaitException.class,
                                    e -> assertThat(e.acknowledged()).isZero())
                            .hasMessageContaining("acknowledged by 0 of 1 replicas that could be counted: ");
                    if (applicationClient) {
                        // the engine's own client tells whichever Lettuce sees first: the loss, or the WAIT failing
                        assertThat(failure.getCause())
                                .hasMessageContaining("the connection to Redis was lost before WAIT answered");
                    }
                } finally {
                    frozen.close();
                }
                assertThat(Duration.ofNanos(System.nanoTime() - lostAt)).isLessThan(Duration.ofSeconds(5));
                await("on the master all along, once the queue's connection is back")
                        .atMost(Duration.ofSeconds(5))
                        .ignoreExceptionsInstanceOf(SluiceException.class)
                        .until(() -> queue.job("j").isPresent());
            } finally {
                client.shutdown();
            }
        }
    }
}
