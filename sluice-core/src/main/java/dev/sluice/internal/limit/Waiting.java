package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.Limiter;
import dev.sluice.time.DurationText;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Waiting for permits, the same for every engine: ask, and if denied, sleep for the reported retry-after
 * and ask again, unless the wait would run past the deadline.
 */
public final class Waiting {
    private Waiting() {}

    /** How a limiter caps a single sleep; some policies can free permits before their reported time. */
    public interface Stepper {
        /** The longest single sleep, in nanoseconds, after {@code denial}. */
        long maxStepNanos(Decision denial);
    }

    /** Blocks until allowed, or returns the denial that makes the deadline unreachable. */
    public static <K> Decision acquire(
            Limiter<K> limiter, SluiceClock clock, Stepper stepper, K key, long permits, Duration timeout)
            throws InterruptedException {
        long deadline = deadline(clock, timeout);
        while (true) {
            Decision decision = limiter.tryAcquire(key, permits);
            if (decision.allowed()) {
                return decision;
            }
            long left = deadline - clock.nanos();
            if (decision.retryAfterNanos() > left) {
                return decision;
            }
            clock.sleep(Math.min(decision.retryAfterNanos(), stepper.maxStepNanos(decision)));
        }
    }

    /**
     * As {@link #acquire}, completing a future instead of blocking: each attempt is the limiter's {@link
     * Limiter#tryAcquireAsync}, the first one started on the caller (so that bad arguments throw there), and the
     * waits between attempts are scheduled on {@code clock}.
     */
    public static <K> CompletableFuture<Decision> acquireAsync(
            Limiter<K> limiter, SluiceClock clock, Stepper stepper, K key, long permits, Duration timeout) {
        long deadline = deadline(clock, timeout);
        CompletableFuture<Decision> result = new CompletableFuture<>();
        CompletableFuture<Decision> first = limiter.tryAcquireAsync(key, permits);
        new Object() {
            void answered(Decision decision, Throwable failure) {
                if (failure != null) {
                    result.completeExceptionally(failure);
                    return;
                }
                if (decision.allowed() || decision.retryAfterNanos() > deadline - clock.nanos()) {
                    if (!result.complete(decision)) {
                        decision.release();
                    }
                    return;
                }
                long step = Math.min(decision.retryAfterNanos(), stepper.maxStepNanos(decision));
                clock.schedule(step, this::retry);
            }

            void retry() {
                if (result.isDone()) {
                    return;
                }
                try {
                    limiter.tryAcquireAsync(key, permits).whenComplete(this::answered);
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            }

            void start() {
                first.whenComplete(this::answered);
            }
        }.start();
        return result;
    }

    private static long deadline(SluiceClock clock, Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be zero or positive, was " + DurationText.format(timeout));
        }
        long now = clock.nanos();
        long nanos =
                timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE / 2)) > 0 ? Long.MAX_VALUE / 2 : timeout.toNanos();
        return now + nanos;
    }
}
