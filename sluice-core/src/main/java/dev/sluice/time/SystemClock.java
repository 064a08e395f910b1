package dev.sluice.time;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** Wall-clock time read once at start-up, advanced by the monotonic {@link System#nanoTime()}. */
final class SystemClock implements SluiceClock {
    static final SystemClock INSTANCE = new SystemClock();

    /** Added to {@link System#nanoTime()} to give nanoseconds since the epoch. */
    private final long epochOffset;

    private SystemClock() {
        Instant start = Instant.now();
        long ticks = System.nanoTime();
        epochOffset = start.getEpochSecond() * 1_000_000_000L + start.getNano() - ticks;
    }

    @Override
    public long nanos() {
        return System.nanoTime() + epochOffset;
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
        return "SluiceClock.system()";
    }
}
