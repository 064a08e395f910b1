package dev.sluice.micrometer;

import dev.sluice.Sluice;

/** The binding contract on the in-memory engine. */
class InMemoryBindingTest extends BindingContract {
    @Override
    protected Sluice newEngine() {
        return Sluice.inMemory();
    }
}
