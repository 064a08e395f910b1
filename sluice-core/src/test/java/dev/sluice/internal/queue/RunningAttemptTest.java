package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A timeout's interrupt reaches exactly the attempt it was meant for (issue 9: it was sent after the lock was
 * released and could land on the slot's next job), and is cleared when that attempt leaves the processor; both
 * engines' slots interrupt through {@link RunningAttempt}.
 */
class RunningAttemptTest {
    private final RunningAttempt attempt = new RunningAttempt();
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
        attempt.enter(job, 3);

        attempt.interrupt(job, 3);

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        attempt.leave();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anInterruptForAnAttemptThatLeftReachesNothing() {
        attempt.enter(job, 3);
        attempt.leave();

        attempt.interrupt(job, 3);

        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anInterruptForAnEarlierAttemptOrAnotherJobSparesTheNextAttempt() {
        attempt.enter(job, 4);

        attempt.interrupt(job, 3);
        attempt.interrupt(record("other"), 4);

        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void leavingKeepsAnInterruptTheSlotDidNotSend() {
        attempt.enter(job, 3);
        Thread.currentThread().interrupt();

        attempt.leave();

        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    /**
     * The runner starts once the interrupter runs, and goes on past its million attempts until an interrupt has
     * landed inside one (10 s at most): on a busy machine the interrupter could otherwise get no time before the
     * runner is done, and the race this test is about would not be run.
     */
    @Test
    void anInterruptRacingTheEndOfItsAttemptNeverReachesTheNextOne() throws Exception {
        int attempts = 1_000_000;
        JobRecord other = record("other");
        java.util.concurrent.atomic.AtomicInteger current = new java.util.concurrent.atomic.AtomicInteger(-1);
        java.util.concurrent.atomic.AtomicInteger leaked = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger delivered = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CountDownLatch interrupting = new java.util.concurrent.CountDownLatch(1);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        Thread runner = new Thread(() -> {
            try {
                interrupting.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < attempts || delivered.get() == 0 && System.nanoTime() < deadline; i++) {
                if (Thread.currentThread().isInterrupted()) {
                    leaked.incrementAndGet();
                    Thread.interrupted();
                }
                JobRecord target = i % 2 == 0 ? job : other;
                attempt.enter(target, i);
                current.set(i);
                Thread.onSpinWait();
                if (Thread.currentThread().isInterrupted()) {
                    delivered.incrementAndGet();
                }
                attempt.leave();
            }
            current.set(Integer.MAX_VALUE);
        });
        Thread interrupter = new Thread(() -> {
            interrupting.countDown();
            int i;
            while ((i = current.get()) < Integer.MAX_VALUE) {
                if (i >= 0) {
                    attempt.interrupt(i % 2 == 0 ? job : other, i);
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
