package dev.sluice.internal.queue;

import dev.sluice.time.SluiceClock;

/**
 * A queue's one clock timer, armed for the earliest of its due times (delayed jobs, parked groups, pauses,
 * expiring jobs, remembered ids): arming it for a later time than it holds changes nothing. Guarded by the
 * queue's lock.
 */
final class WakeTimer {
    private final SluiceClock clock;
    private final Runnable onWake;
    private SluiceClock.Timer timer;
    private long at = Long.MAX_VALUE;

    WakeTimer(SluiceClock clock, Runnable onWake) {
        this.clock = clock;
        this.onWake = onWake;
    }

    /** Wakes the queue at {@code when} (engine nanoseconds) at the latest. */
    void arm(long when) {
        if (when >= at) {
            return;
        }
        if (timer != null) {
            timer.cancel();
        }
        at = when;
        timer = clock.schedule(when - clock.nanos(), onWake);
    }

    /** Disarms the timer for good: the queue is gone. */
    void cancel() {
        if (timer != null) {
            timer.cancel();
        }
        timer = null;
        at = Long.MIN_VALUE;
    }

    /** Called when the timer fired: nothing is armed any more. */
    void fired() {
        timer = null;
        at = Long.MAX_VALUE;
    }
}
