package dev.sluice.http.javalin;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;

class InMemoryJavalinFilterTest extends JavalinFilterContract {
    @Override
    protected Sluice newEngine(ManualClock clock) {
        return Sluice.inMemory(clock);
    }
}
