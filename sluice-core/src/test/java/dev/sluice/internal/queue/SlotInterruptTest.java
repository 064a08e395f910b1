package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A timeout's interrupt reaches exactly the attempt it was meant for (issue 9: it was sent after the lock was
 * released and could land on the slot's next job), and is cleared when that attempt leaves the processor.
 */
class SlotInterruptTest {
    private final InMemoryQueue<String> queue =
            new InMemoryQueue<>("engine", "q", Codec.utf8(), QueueOptions.defaults(), new ManualClock());
    private final InMemoryWorker<String> worker =
            new InMemoryWorker<>(queue, ctx -> Result.done(), WorkerOptions.manual());
    private final InMemoryWorker<String>.Slot slot = worker.new Slot();
    private final JobRecord job = record("j");

    private static JobRecord record(String id) {
        return new JobRecord(id, "n", new byte[0], Group.Key.UNGROUPED, JobOptions.empty(), 0, null, 0);
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void interruptsTheAttemptStillRunningAndClearsTheFlagWhenItLeaves() {
        slot.thread = Thread.currentThread();
        slot.enter(job, 3);

        slot.interruptAttempt(job, 3);

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        slot.leave();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anInterruptForAnAttemptThatLeftReachesNothing() {
        slot.thread = Thread.currentThread();
        slot.enter(job, 3);
        slot.leave();

        slot.interruptAttempt(job, 3);

        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anInterruptForAnEarlierAttemptOrAnotherJobSparesTheNextAttempt() {
        slot.thread = Thread.currentThread();
        slot.enter(job, 4);

        slot.interruptAttempt(job, 3);
        slot.interruptAttempt(record("other"), 4);

        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void leavingKeepsAnInterruptTheSlotDidNotSend() {
        slot.thread = Thread.currentThread();
        slot.enter(job, 3);
        Thread.currentThread().interrupt();

        slot.leave();

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void anInterruptRacingTheEndOfItsAttemptNeverReachesTheNextOne() throws Exception {
        int attempts = 1_000_000;
        JobRecord other = record("other");
        java.util.concurrent.atomic.AtomicInteger current = new java.util.concurrent.atomic.AtomicInteger(-1);
        java.util.concurrent.atomic.AtomicInteger leaked = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger delivered = new java.util.concurrent.atomic.AtomicInteger();
        Thread runner = new Thread(() -> {
            for (int i = 0; i < attempts; i++) {
                if (Thread.currentThread().isInterrupted()) {
                    leaked.incrementAndGet();
                    Thread.interrupted();
                }
                JobRecord target = i % 2 == 0 ? job : other;
                slot.enter(target, i);
                current.set(i);
                Thread.onSpinWait();
                if (Thread.currentThread().isInterrupted()) {
                    delivered.incrementAndGet();
                }
                slot.leave();
            }
            current.set(attempts);
        });
        slot.thread = runner;
        Thread interrupter = new Thread(() -> {
            int i;
            while ((i = current.get()) < attempts) {
                if (i >= 0) {
                    slot.interruptAttempt(i % 2 == 0 ? job : other, i);
                }
            }
        });
        runner.start();
        interrupter.start();
        runner.join();
        interrupter.join();

        assertThat(leaked).as("interrupts that reached a later attempt").hasValue(0);
        assertThat(delivered).as("interrupts delivered inside their attempt").hasPositiveValue();
    }
}
