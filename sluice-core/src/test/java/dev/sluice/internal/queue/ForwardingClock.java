package dev.sluice.internal.queue;

import dev.sluice.time.SluiceClock;

/** A clock that forwards every call to another: tests override the calls they watch or refuse. */
class ForwardingClock implements SluiceClock {
    private final SluiceClock target;

    ForwardingClock(SluiceClock target) {
        this.target = target;
    }

    @Override
    public long nanos() {
        return target.nanos();
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        target.sleep(nanos);
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
        return target.schedule(delayNanos, task);
    }
}
