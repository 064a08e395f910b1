package dev.sluice.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Keeps {@code inFlight} requests in flight for a fixed time: that many callers, each on a virtual thread of its
 * own, each calling {@link RedisBenchContender.Decider#decide} synchronously in a loop, one call after the other.
 * Caller {@code c} walks the keys round-robin from key {@code c * keys / inFlight}, so the callers spread over
 * the keys; with one key they all hit it.
 */
final class RedisBenchLoad {
    /** A caller gives up after this many failed calls in one run (the server is gone; no point spinning). */
    static final int MAX_ERRORS_PER_CALLER = 1_000;

    /**
     * One run: the meters around it (wall clock from releasing the callers until the last one returned from its
     * last call), decisions made, grants among them, calls that threw, and the first failure's text (or null).
     */
    record Outcome(QueueMeter.Timing timing, long decisions, long granted, long errors, String firstError) {}

    private RedisBenchLoad() {}

    static Outcome run(RedisBenchContender.Decider decider, int keys, int inFlight, Duration duration)
            throws InterruptedException {
        Caller[] callers = new Caller[inFlight];
        CountDownLatch ready = new CountDownLatch(inFlight);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>(inFlight);
        for (int c = 0; c < inFlight; c++) {
            callers[c] = new Caller(decider, keys, (int) ((long) c * keys / inFlight), ready, go);
            threads.add(Thread.ofVirtual().name("bench-caller-" + c).start(callers[c]));
        }
        ready.await();
        long deadline = System.nanoTime() + duration.toNanos();
        for (Caller caller : callers) {
            caller.deadline = deadline;
        }
        QueueMeter meter = QueueMeter.start();
        go.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        QueueMeter.Timing timing = meter.stop();
        long decisions = 0;
        long granted = 0;
        long errors = 0;
        String firstError = null;
        for (Caller caller : callers) {
            decisions += caller.decisions;
            granted += caller.granted;
            errors += caller.errors;
            if (firstError == null && caller.firstError != null) {
                firstError = caller.firstError.toString();
            }
        }
        return new Outcome(timing, decisions, granted, errors, firstError);
    }

    /** One caller; its counts are read once its thread has ended. */
    private static final class Caller implements Runnable {
        private final RedisBenchContender.Decider decider;
        private final int keys;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        private int next;
        // written before go opens; the latch makes it visible
        long deadline;
        long decisions;
        long granted;
        long errors;
        Throwable firstError;

        Caller(RedisBenchContender.Decider decider, int keys, int first, CountDownLatch ready, CountDownLatch go) {
            this.decider = decider;
            this.keys = keys;
            this.next = first;
            this.ready = ready;
            this.go = go;
        }

        @Override
        public void run() {
            ready.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            while (System.nanoTime() < deadline && errors < MAX_ERRORS_PER_CALLER) {
                try {
                    if (decider.decide(next)) {
                        granted++;
                    }
                    decisions++;
                } catch (Exception e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    errors++;
                    if (firstError == null) {
                        firstError = e;
                    }
                }
                next = next + 1 == keys ? 0 : next + 1;
            }
        }
    }
}
