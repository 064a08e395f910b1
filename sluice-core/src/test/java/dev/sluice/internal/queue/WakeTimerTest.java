package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WakeTimerTest {
    private final ManualClock manual = new ManualClock();
    private final long t0 = manual.nanos();
    /** The delays of the timers scheduled, in order. */
    private final List<Long> scheduled = new ArrayList<>();

    private final SluiceClock clock = new ForwardingClock(manual) {
        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            scheduled.add(delayNanos);
            return super.schedule(delayNanos, task);
        }
    };

    private final AtomicInteger wakes = new AtomicInteger();
    private final WakeTimer timer = new WakeTimer(clock, wakes::incrementAndGet);

    @Test
    void armingForTheTimeItHoldsOrALaterOneSchedulesNothing() {
        timer.arm(t0 + 100);
        timer.arm(t0 + 100);
        timer.arm(t0 + 200);

        assertThat(scheduled).containsExactly(100L);
        manual.advanceNanos(200);
        assertThat(wakes).hasValue(1);
    }

    @Test
    void armingForAnEarlierTimeReplacesTheTimer() {
        timer.arm(t0 + 100);
        timer.arm(t0 + 40);

        assertThat(scheduled).containsExactly(100L, 40L);
        assertThat(manual.pendingTasks()).as("the later timer is cancelled").isEqualTo(1);
        manual.advanceNanos(40);
        assertThat(wakes).hasValue(1);
        manual.advanceNanos(100);
        assertThat(wakes).hasValue(1);
    }

    @Test
    void afterItFiredAnyTimeArmsItAgain() {
        timer.arm(t0 + 100);
        manual.advanceNanos(100);
        timer.fired();

        timer.arm(t0 + 500);

        assertThat(scheduled).containsExactly(100L, 400L);
        manual.advanceNanos(400);
        assertThat(wakes).hasValue(2);
    }
}
