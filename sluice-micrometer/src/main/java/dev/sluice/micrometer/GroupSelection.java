package dev.sluice.micrometer;

import dev.sluice.time.SluiceClock;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Which groups of one queue get meters: those named in the options, and at most {@code busiest} others, the
 * busiest of the last period (see {@link MetricsOptions}). Thread-safe: events of a queue may come from several
 * threads at once.
 */
final class GroupSelection {
    /** The most groups of one queue counted within a period; the others' events go uncounted until the next. */
    static final int MAX_COUNTED = 10_000;

    private final Set<String> named;
    private final int busiest;
    private final long periodNanos;
    private final SluiceClock clock;
    private final Consumer<String> dropped;

    private final ConcurrentHashMap<String, LongAdder> events = new ConcurrentHashMap<>();
    private volatile Set<String> selected = Set.of();
    private volatile long rankAt;

    /**
     * The selection of {@code options}, on {@code clock}; {@code dropped} hears each group that lost its place,
     * whose meters it removes.
     */
    GroupSelection(MetricsOptions options, SluiceClock clock, Consumer<String> dropped) {
        this.named = options.groups();
        this.busiest = options.busiestGroups();
        this.periodNanos = options.rankEvery().toNanos();
        this.clock = clock;
        this.dropped = dropped;
        this.rankAt = clock.nanos() + periodNanos;
    }

    /** Counts an event of {@code group}; whether the group has meters now. */
    boolean heard(String group) {
        if (named.contains(group)) {
            return true;
        }
        if (busiest == 0) {
            return false;
        }
        count(group);
        long now = clock.nanos();
        if (now - rankAt >= 0) {
            rank(now);
        }
        Set<String> current = selected;
        return current.contains(group) || current.size() < busiest && take(group);
    }

    private void count(String group) {
        LongAdder count = events.get(group);
        if (count == null) {
            if (events.size() >= MAX_COUNTED) {
                return;
            }
            count = events.computeIfAbsent(group, g -> new LongAdder());
        }
        count.increment();
    }

    /** Gives {@code group} a free place, if one is still free. */
    private synchronized boolean take(String group) {
        Set<String> current = selected;
        if (current.contains(group)) {
            return true;
        }
        if (current.size() >= busiest) {
            return false;
        }
        Set<String> next = new HashSet<>(current);
        next.add(group);
        selected = Set.copyOf(next);
        return true;
    }

    /** The places go to the busiest groups of the period that ended; a new period starts. */
    private void rank(long now) {
        Set<String> lost = new HashSet<>();
        synchronized (this) {
            if (now - rankAt < 0) {
                return;
            }
            Set<String> next = new HashSet<>();
            events.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), e.getValue().sum()))
                    .filter(e -> e.getValue() > 0)
                    .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                            .thenComparing(Map.Entry.comparingByKey()))
                    .limit(busiest)
                    .forEach(e -> next.add(e.getKey()));
            for (String group : selected) {
                if (!next.contains(group)) {
                    lost.add(group);
                }
            }
            selected = Set.copyOf(next);
            events.clear();
            rankAt = now + periodNanos;
        }
        lost.forEach(dropped);
    }
}
