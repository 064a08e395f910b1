package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.time.ManualClock;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * How long the Redis engine keeps a released group's statistics, which the contract leaves to the engine: listed
 * by {@code groups()} for a day of the script's time after the group was released, and the list of released
 * groups does not grow past those of the last day.
 */
class RedisQueueStatsTest {
    private static final Duration DAY = Duration.ofDays(1);

    @Test
    void aReleasedGroupIsListedForADayThenForgotten() {
        ManualClock clock = new ManualClock();
        String prefix = TestEngines.newPrefix();
        String base = prefix + ":queue:{jobs}";
        try (Sluice sluice = TestEngines.on(clock, prefix);
                StatefulRedisConnection<String, String> connection =
                        TestEngines.client().connect()) {
            RedisCommands<String, String> redis = connection.sync();
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            addAndDrain(queue, "old");
            assertThat(redis.ttl(base + ":s:gold"))
                    .as("statistics of a group that only ever had jobs added expire too")
                    .isPositive();

            clock.advance(DAY.minus(Duration.ofNanos(1_000)));
            addAndDrain(queue, "new");
            assertThat(queue.groups()).containsExactly("new", "old");
            assertThat(queue.stats("old").added()).isEqualTo(1);

            clock.advance(Duration.ofNanos(1_000));
            addAndDrain(queue, "newer");
            assertThat(redis.zrange(base + ":sg", 0, -1))
                    .as("a group listed for the first time clears out those released a day ago")
                    .containsExactly("gnew", "gnewer");
            assertThat(queue.groups()).containsExactly("new", "newer");

            clock.advance(DAY);
            assertThat(queue.groups()).isEmpty();
            assertThat(redis.exists(base + ":sg")).isZero();
        }
    }

    /** Adds a job to {@code group} and drains it: the group is released without a job having run. */
    private static void addAndDrain(JobQueue<String> queue, String group) {
        queue.add("n", "p", JobOptions.builder().group(group).build());
        assertThat(queue.groups()).contains(group);
        assertThat(queue.drain(false)).isEqualTo(1);
    }
}
