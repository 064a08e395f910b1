package dev.sluice.time;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** Wall-clock time read once at start-up, advanced by the monotonic {@link System#nanoTime()}. */
final class SystemClock implements Clock {
    static final SystemClock INSTANCE = new SystemClock();

    private final long originEpochNanos;
    private final long originTicks;

    private SystemClock() {
        Instant start = Instant.now();
        originTicks = System.nanoTime();
        originEpochNanos = start.getEpochSecond() * 1_000_000_000L + start.getNano();
    }

    @Override
    public long nanos() {
        return originEpochNanos + (System.nanoTime() - originTicks);
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } else if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
        AtomicBoolean pending = new AtomicBoolean(true);
        CompletableFuture.delayedExecutor(Math.max(0, delayNanos), TimeUnit.NANOSECONDS)
                .execute(() -> {
                    if (pending.compareAndSet(true, false)) {
                        task.run();
                    }
                });
        return () -> pending.compareAndSet(true, false);
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}
