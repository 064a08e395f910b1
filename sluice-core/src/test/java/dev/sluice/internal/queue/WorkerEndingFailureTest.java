package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Slots record each other's endings: one ending that fails to be recorded (here: the clock refuses the timer
 * that a kept job's expiry needs) must not leave the other slots of the worker waiting for ever.
 */
class WorkerEndingFailureTest {

    /** The system clock, refusing to schedule the first {@code refusals} timers asked for. */
    private static final class RefusingClock extends ForwardingClock {
        private final AtomicInteger refusals;

        RefusingClock(int refusals) {
            super(SluiceClock.system());
            this.refusals = new AtomicInteger(refusals);
        }

        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            if (refusals.getAndDecrement() > 0) {
                throw new IllegalStateException("no timer this time");
            }
            return super.schedule(delayNanos, task);
        }
    }

    @Test
    void slotsWhoseEndingsCannotBeRecordedLeaveTheOtherSlotsRunning() {
        RefusingClock clock = new RefusingClock(Integer.MAX_VALUE);
        InMemoryQueue<String> queue = new InMemoryQueue<>("engine", "q", Codec.utf8(), QueueOptions.defaults(), clock);
        int jobs = 40;
        for (int i = 0; i < jobs; i++) {
            // each job kept for less time than the one before, so that every completion asks for an earlier timer
            queue.add(
                    "n",
                    "p" + i,
                    JobOptions.builder()
                            .keepCompleted(Retention.keepFor(Duration.ofSeconds(jobs - i)))
                            .build());
        }
        AtomicInteger ran = new AtomicInteger();
        QueueWorker<String, InMemoryWorker.Claim> worker = InMemoryWorker.create(
                queue,
                ctx -> {
                    ran.incrementAndGet();
                    return Result.done();
                },
                WorkerOptions.concurrency(4));
        worker.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> ran.get() == jobs);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(queue.counts().completed()).isEqualTo(jobs));
        } finally {
            worker.closeAsync(Duration.ZERO);
        }
    }
}
