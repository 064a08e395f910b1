package dev.sluice.jackson;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;

/** The JSON queue contract on the in-memory engine, on a manual clock. */
class InMemoryJsonQueueTest extends JsonQueueContract {
    @Override
    protected Sluice newEngine() {
        return Sluice.inMemory(new ManualClock());
    }
}
