package dev.sluice.server;

import dev.sluice.Sluice;

/** The dashboard's routes on the in-memory engine. */
class InMemoryDashboardApiTest extends DashboardApiContract {
    @Override
    Sluice newEngine() {
        return Sluice.inMemory();
    }
}
