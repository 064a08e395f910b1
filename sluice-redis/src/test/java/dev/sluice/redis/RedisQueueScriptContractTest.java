package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.EngineDifferences;
import dev.sluice.testkit.QueueContract;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import org.junit.jupiter.api.Tag;

/**
 * The queue contract against a real Redis with queues run as a script ({@code EVALSHA}), as on Redis 6.2 or where
 * {@code FUNCTION LOAD} is refused, instead of as Redis functions.
 */
@Tag("slow")
class RedisQueueScriptContractTest extends QueueContract {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return TestEngines.on(clock, TestEngines.newPrefix(), false);
    }

    @Override
    protected EngineDifferences differences() {
        return EngineDifferences.sharedServer(Duration.ofNanos(1_000));
    }
}
