package dev.sluice.server;

import dev.sluice.Sluice;

/** Access control on the in-memory engine. */
class InMemoryAccessTest extends AccessContract {
    @Override
    Sluice newEngine() {
        return Sluice.inMemory();
    }
}
