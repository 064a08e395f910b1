package dev.sluice.http.servlet;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;

class InMemorySluiceRateLimitFilterTest extends SluiceRateLimitFilterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return Sluice.inMemory(clock);
    }
}
