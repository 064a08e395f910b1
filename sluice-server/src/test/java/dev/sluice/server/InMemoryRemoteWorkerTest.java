package dev.sluice.server;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;
import java.time.Duration;

/** Workers in other languages on the in-memory engine, on a manual clock: leases run out when the test says. */
class InMemoryRemoteWorkerTest extends RemoteWorkerApiContract {
    private final ManualClock clock = new ManualClock();

    @Override
    Sluice newEngine() {
        return Sluice.inMemory(clock);
    }

    @Override
    void elapse(Duration time) {
        clock.advance(time);
    }

    @Override
    long shortLeaseMs() {
        return 30_000;
    }
}
