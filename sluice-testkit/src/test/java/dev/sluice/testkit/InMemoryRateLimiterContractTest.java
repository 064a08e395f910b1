package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.SluiceClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The rate limiter contract, run against the in-memory engine, plus the bounded key table that only the
 * in-memory engine has (a shared engine lets idle state expire instead).
 */
class InMemoryRateLimiterContractTest extends RateLimiterContract {
    @Override
    protected Sluice newEngine(SluiceClock clock) {
        return Sluice.inMemory(clock);
    }

    /** Bounded key table: eviction of idle keys, shared overflow. */
    @Nested
    @DisplayName("bounded key table: eviction of idle keys, shared overflow")
    class KeyTable extends KeyTableContract {}
}
