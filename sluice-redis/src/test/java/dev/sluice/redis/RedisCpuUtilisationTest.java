package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.time.SluiceClock;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * Redis's CPU utilisation as a queue's gauge: one process reads INFO CPU at a time and publishes the change of the
 * CPU seconds over wall time; the others read what it published, and NaN while nothing is published.
 */
class RedisCpuUtilisationTest {
    private final String prefix = TestEngines.newPrefix();

    @Test
    void oneProcessReadsTheCpuAndTheOthersReadWhatItPublished() {
        try (Sluice first = TestEngines.on(SluiceClock.system(), prefix);
                Sluice second = TestEngines.on(SluiceClock.system(), prefix)) {
            JobQueue<String> queue = first.queue("cpu", Codec.utf8());
            DoubleSupplier reader = RedisSluice.cpuUtilisation(queue);
            DoubleSupplier other = RedisSluice.cpuUtilisation(second.queue("cpu", Codec.utf8()));

            assertThat(reader.getAsDouble())
                    .as("the reader's first reading: nothing to compare yet")
                    .isZero();
            assertThat(other.getAsDouble()).as("nothing published yet").isNaN();
            for (int i = 0; i < 2_000; i++) {
                queue.counts(); // some work for Redis
            }
            double busy = reader.getAsDouble();
            assertThat(busy).isGreaterThan(0).isLessThan(4);
            assertThat(other.getAsDouble())
                    .as("the other reads what the reader published")
                    .isEqualTo(busy);
            assertThat(TestEngines.commands().get(prefix + ":queue:{cpu}:cpu:reader"))
                    .isNotNull();
        }
    }

    @Test
    void onlyQueuesOfARedisEngineHaveOne() {
        try (Sluice memory = Sluice.inMemory()) {
            JobQueue<String> queue = memory.queue("q", Codec.utf8());
            assertThatThrownBy(() -> RedisSluice.cpuUtilisation(queue))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("not a queue of an engine built by RedisSluice");
        }
    }
}
