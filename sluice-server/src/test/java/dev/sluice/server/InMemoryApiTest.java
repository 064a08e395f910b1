package dev.sluice.server;

import dev.sluice.Sluice;

/** The API on the in-memory engine. */
class InMemoryApiTest extends ApiContract {
    @Override
    Sluice newEngine() {
        return Sluice.inMemory();
    }
}
