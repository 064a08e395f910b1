package dev.sluice.http;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;

class InMemoryIngressLimiterTest extends IngressLimiterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return Sluice.inMemory(clock);
    }
}
