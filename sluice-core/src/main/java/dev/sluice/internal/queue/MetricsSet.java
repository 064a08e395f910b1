package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link QueueMetrics} of one queue, told of each change this process makes; each is told in turn, and what
 * one throws is logged once for it and goes no further. Reading the set is one volatile read.
 */
public final class MetricsSet {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsSet.class);
    private static final QueueMetrics[] NONE = new QueueMetrics[0];

    private final String queue;
    private volatile QueueMetrics[] all = NONE;
    /** The metrics whose throwing was logged already. */
    private final Set<QueueMetrics> complainedOf =
            Collections.newSetFromMap(Collections.synchronizedMap(new WeakHashMap<>()));

    /** @param queue the queue's name, for the log */
    public MetricsSet(String queue) {
        this.queue = queue;
    }

    /** Adds {@code metrics} (null refused, as a listener is). */
    public synchronized void add(QueueMetrics metrics) {
        if (metrics == null) {
            throw new IllegalArgumentException("metrics must not be null");
        }
        QueueMetrics[] now = all;
        QueueMetrics[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = metrics;
        all = next;
    }

    /** Removes {@code metrics}, compared by identity; whether it was there. */
    public synchronized boolean remove(QueueMetrics metrics) {
        QueueMetrics[] now = all;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == metrics) {
                QueueMetrics[] next = new QueueMetrics[now.length - 1];
                System.arraycopy(now, 0, next, 0, i);
                System.arraycopy(now, i + 1, next, i, now.length - i - 1);
                all = next.length == 0 ? NONE : next;
                return true;
            }
        }
        return false;
    }

    /** Whether none is registered: then nothing need be measured for them. */
    public boolean isEmpty() {
        return all.length == 0;
    }

    /** Tells every registered metrics {@code change}. */
    public void tell(Consumer<QueueMetrics> change) {
        for (QueueMetrics metrics : all) {
            try {
                change.accept(metrics);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                if (complainedOf.add(metrics)) {
                    LOG.warn(
                            "metrics {} of queue '{}' threw (logged once for them); the queue goes on",
                            metrics,
                            queue,
                            e);
                }
            }
        }
    }

    /** Tells of an attempt that ended as the engine recorded it; see {@link Ending}. */
    public void ended(
            String group, Ending ending, Job.Attempt.Outcome outcome, Result.Scope scope, Duration processing) {
        if (all.length > 0) {
            tell(m -> tellEnded(m, group, ending, outcome, scope, processing));
        }
    }

    /** Tells {@code metrics} of an attempt that ended: the method of {@code ending}, with what it takes. */
    static void tellEnded(
            QueueMetrics metrics,
            String group,
            Ending ending,
            Job.Attempt.Outcome outcome,
            Result.Scope scope,
            Duration processing) {
        switch (ending) {
            case COMPLETED -> metrics.completed(group, processing);
            case RETRYING -> metrics.retrying(group, outcome, processing);
            case FAILED -> metrics.failed(group, outcome, processing);
            case RATE_LIMITED -> metrics.rateLimited(group, scope, processing);
            case RESCHEDULED -> metrics.rescheduled(group, processing);
            case INTERRUPTED -> metrics.interrupted(group, processing);
        }
    }

    /** What became of a job when an attempt of it ended. */
    public enum Ending {
        COMPLETED,
        RETRYING,
        FAILED,
        RATE_LIMITED,
        RESCHEDULED,
        INTERRUPTED;

        private static final Map<String, Ending> BY_WORD = Map.of(
                "completed", COMPLETED,
                "retrying", RETRYING,
                "failed", FAILED,
                "rate-limited", RATE_LIMITED,
                "rescheduled", RESCHEDULED,
                "interrupted", INTERRUPTED);

        /** The ending the Redis queue script names {@code word}; null for another word (nothing happened). */
        public static Ending ofWord(String word) {
            return BY_WORD.get(word);
        }
    }
}
