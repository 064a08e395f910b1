package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.SluiceClock;

/** The queue contract, run against the in-memory engine. */
class InMemoryQueueContractTest extends QueueContract {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return Sluice.inMemory(clock);
    }
}
