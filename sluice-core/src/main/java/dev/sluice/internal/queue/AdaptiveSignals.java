package dev.sluice.internal.queue;

import dev.sluice.internal.adaptive.Signal;
import dev.sluice.internal.limit.QueueRate;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import dev.sluice.time.SluiceClock;
import java.time.Duration;

/**
 * What the end of an attempt tells the adaptive rates of the in-memory queue, under its lock: every end is a report
 * to the queue's rate and to the job's group's (one attempt started, and whether it succeeded or was refused), a
 * success also its processing time, and a refusal (a rate limit, an overload, a timeout) a loss to the nearest
 * adaptive rate of its scope: for GROUP the group's, else the queue's; for QUEUE the queue's, else the group's.
 * A quota a processor passes on goes to that nearest rate too. The Redis engine's finish script does the same
 * (queue-adaptive.lua), and its {@code adapt} command for a quota.
 */
final class AdaptiveSignals {
    private AdaptiveSignals() {}

    /** A completed attempt that started at {@code startedAt}. */
    static <T> void succeeded(InMemoryQueue<T> queue, Group group, long startedAt, long now, Events<T> events) {
        if (!heard(queue, group)) {
            return;
        }
        report(queue, group, new Signal.Report(1, 1, 0, null), now, events);
        Signal latency = new Signal.Latency(Math.max(0, now - startedAt));
        tell(queue, group, Result.Scope.GROUP, groupRate(queue, group), latency, now, events);
        tell(queue, group, Result.Scope.QUEUE, queueRate(queue), latency, now, events);
    }

    /** A failed attempt; a timed out one is a loss of the group's scope (the downstream may be overloaded). */
    static <T> void failed(
            InMemoryQueue<T> queue, Group group, boolean timedOut, long startedAt, long now, Events<T> events) {
        if (!heard(queue, group)) {
            return;
        }
        report(queue, group, new Signal.Report(1, 0, timedOut ? 1 : 0, null), now, events);
        if (timedOut) {
            nearest(
                    queue,
                    group,
                    Result.Scope.GROUP,
                    new Signal.Loss(Signal.Loss.Kind.OVERLOADED, startedAt, 0),
                    now,
                    events);
        }
    }

    /** An attempt refused by the downstream: rate-limited ({@code limited}) or overloaded, for {@code scope}. */
    static <T> void refused(
            InMemoryQueue<T> queue,
            Group group,
            Result.Scope scope,
            boolean limited,
            long startedAt,
            Duration retryAfter,
            long now,
            Events<T> events) {
        if (!heard(queue, group)) {
            return;
        }
        report(queue, group, new Signal.Report(1, 0, 1, null), now, events);
        Signal.Loss.Kind kind = limited ? Signal.Loss.Kind.RATE_LIMITED : Signal.Loss.Kind.OVERLOADED;
        nearest(queue, group, scope, new Signal.Loss(kind, startedAt, AttemptRules.nanos(retryAfter)), now, events);
    }

    /** A quota the downstream announced, to the nearest adaptive rate of {@code scope}. */
    static <T> void quota(
            InMemoryQueue<T> queue,
            Group group,
            Result.Scope scope,
            long remaining,
            long resetNanos,
            long now,
            Events<T> events) {
        if (heard(queue, group)) {
            nearest(queue, group, scope, new Signal.Quota(remaining, resetNanos), now, events);
        }
    }

    /** A signal of the whole queue (a gauge it follows, or its staleness) to the queue's adaptive rate, if any. */
    static <T> void toQueueRate(InMemoryQueue<T> queue, Signal signal, long now, Events<T> events) {
        tell(queue, null, Result.Scope.QUEUE, queueRate(queue), signal, now, events);
    }

    private static boolean heard(InMemoryQueue<?> queue, Group group) {
        return queueRate(queue) != null || groupRate(queue, group) != null;
    }

    private static <T> void report(
            InMemoryQueue<T> queue, Group group, Signal.Report report, long now, Events<T> events) {
        tell(queue, group, Result.Scope.GROUP, groupRate(queue, group), report, now, events);
        tell(queue, group, Result.Scope.QUEUE, queueRate(queue), report, now, events);
    }

    /** Tells {@code signal} to the nearest adaptive rate of {@code scope}: see the class's description. */
    private static <T> void nearest(
            InMemoryQueue<T> queue, Group group, Result.Scope scope, Signal signal, long now, Events<T> events) {
        QueueRate groupRate = groupRate(queue, group);
        boolean toGroup = scope == Result.Scope.GROUP ? groupRate != null : queueRate(queue) == null;
        if (toGroup) {
            tell(queue, group, Result.Scope.GROUP, groupRate, signal, now, events);
        } else {
            tell(queue, group, Result.Scope.QUEUE, queueRate(queue), signal, now, events);
        }
    }

    private static <T> void tell(
            InMemoryQueue<T> queue,
            Group group,
            Result.Scope scope,
            QueueRate rate,
            Signal signal,
            long now,
            Events<T> events) {
        if (rate == null) {
            return;
        }
        String key = scope == Result.Scope.QUEUE ? InMemoryQueue.QUEUE_KEY : group.key.rateKey();
        dev.sluice.internal.adaptive.RateChange change = rate.signal(key, signal, now);
        if (change == null) {
            return;
        }
        RateChange told = publicChange(scope, scope == Result.Scope.QUEUE ? null : group.key.name(), change);
        if (Events.listened(events)) {
            events.add(l -> l.onRateChanged(told));
        }
    }

    /** {@code change} as listeners hear it. */
    static RateChange publicChange(Result.Scope scope, String group, dev.sluice.internal.adaptive.RateChange change) {
        return new RateChange(
                scope,
                group,
                change.reason(),
                change.signal(),
                change.value(),
                change.from(),
                change.to(),
                SluiceClock.toInstant(change.at()));
    }

    private static QueueRate queueRate(InMemoryQueue<?> queue) {
        QueueRate rate = queue.rate;
        return rate != null && rate.adaptive() ? rate : null;
    }

    private static QueueRate groupRate(InMemoryQueue<?> queue, Group group) {
        QueueRate rate = queue.groups.rateOf(group.key);
        return rate != null && rate.adaptive() ? rate : null;
    }
}
