package dev.sluice.testkit;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** What the contracts of adaptive rates share: a rate of 100 a second, the changes a queue tells, a first cut. */
public abstract class AdaptiveContractSupport extends QueueContractSupport {
    /** For subclasses. */
    protected AdaptiveContractSupport() {}

    /** One second. */
    protected static final Duration ONE_SECOND = Duration.ofSeconds(1);

    /** 100 jobs a second with a burst of 100, adaptive. */
    protected static final AdaptiveRate HUNDRED = AdaptiveRate.of(Gcra.of(100, ONE_SECOND, 100));

    /**
     * The queue of this test with {@code rate}.
     *
     * @param rate the queue's rate
     * @return the queue
     */
    protected final JobQueue<String> queueAt(AdaptiveRate rate) {
        return newQueue(QueueOptions.builder().rate(rate).build());
    }

    /**
     * The rate changes {@code queue}'s listeners hear from now on.
     *
     * @param queue the queue
     * @return the changes, in the order heard
     */
    protected static List<RateChange> heard(JobQueue<String> queue) {
        List<RateChange> changes = Collections.synchronizedList(new ArrayList<>());
        queue.addListener(new QueueListener<>() {
            @Override
            public void onRateChanged(RateChange change) {
                changes.add(change);
            }
        });
        return changes;
    }

    /**
     * Adds a job whose processor finds the downstream overloaded for the whole queue, and runs it: a first cut.
     *
     * @param queue the queue
     */
    protected final void cutOnce(JobQueue<String> queue) {
        queue.add("n", "p", withId("refused"));
        Worker<String> refusing =
                manualWorker(queue, ctx -> Result.overloaded(Result.Scope.QUEUE, Duration.ofHours(1)));
        refusing.runDue();
        refusing.close();
    }

    /**
     * Runs {@code worker} every 10 ms of the clock for {@code millis}.
     *
     * @param worker a manual worker
     * @param millis how long, in milliseconds
     */
    protected final void useFor(Worker<String> worker, long millis) {
        for (long step = 0; step < millis / 10; step++) {
            clock.advance(Duration.ofMillis(10));
            worker.runDue();
        }
    }
}
