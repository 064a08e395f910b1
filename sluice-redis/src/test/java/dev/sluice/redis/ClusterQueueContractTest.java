package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.EngineDifferences;
import dev.sluice.testkit.QueueContract;
import dev.sluice.testkit.redis.RedisCluster;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The whole queue contract on a real Redis Cluster of 3 masters: every key of a queue shares its hash slot, so each
 * call runs on the master that owns the queue.
 */
@Tag("slow")
class ClusterQueueContractTest extends QueueContract {
    private static final AtomicLong PREFIXES = new AtomicLong();
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected Sluice newEngine(SluiceClock clock) {
        RedisSluice.Builder builder = RedisSluice.builder()
                .cluster(cluster.uris().toArray(String[]::new))
                .keyPrefix("cq" + PREFIXES.incrementAndGet())
                .commandTimeout(Duration.ofSeconds(30));
        return (clock instanceof ManualClock ? builder.scriptClock(clock) : builder.clock(clock)).build();
    }

    @Override
    protected EngineDifferences differences() {
        return EngineDifferences.sharedServer(Duration.ofNanos(1_000));
    }
}
