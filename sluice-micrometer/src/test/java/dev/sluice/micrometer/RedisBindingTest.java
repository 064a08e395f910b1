package dev.sluice.micrometer;

import dev.sluice.Sluice;

/** The binding contract on the Redis engine. */
class RedisBindingTest extends BindingContract {
    @Override
    protected Sluice newEngine() {
        return RedisEngines.newEngine();
    }
}
