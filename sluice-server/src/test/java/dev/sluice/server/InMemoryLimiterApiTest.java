package dev.sluice.server;

import dev.sluice.Sluice;

/** The limits over HTTP on the in-memory engine. */
class InMemoryLimiterApiTest extends LimiterApiContract {
    @Override
    Sluice newEngine() {
        return Sluice.inMemory();
    }
}
