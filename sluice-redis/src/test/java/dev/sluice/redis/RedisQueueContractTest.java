package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.EngineDifferences;
import dev.sluice.testkit.QueueContract;
import dev.sluice.time.SluiceClock;
import java.time.Duration;

/** The queue contract against a real Redis. */
class RedisQueueContractTest extends QueueContract {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return TestEngines.on(clock);
    }

    /** Times in Redis are whole microseconds; adds complete when Redis answers; idle slots look for other processes' work. */
    @Override
    protected EngineDifferences differences() {
        return EngineDifferences.sharedServer(Duration.ofNanos(1_000));
    }
}
