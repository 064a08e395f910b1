package dev.sluice.bench;

import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the commands a Lettuce client sends, by type ({@code EVALSHA}, {@code GET}, ...): registered with
 * {@code RedisClient.addListener} before any connection is opened, it sees every command of every connection
 * of that client. One command sent is one round trip (nothing in the benchmark pipelines on purpose: each caller
 * waits for its reply before sending the next command).
 */
final class RedisBenchCommands implements CommandListener {
    private final ConcurrentHashMap<String, LongAdder> started = new ConcurrentHashMap<>();
    private final LongAdder failed = new LongAdder();

    @Override
    public void commandStarted(CommandStartedEvent event) {
        String type = event.getCommand().getType().toString();
        LongAdder count = started.get(type);
        if (count == null) {
            count = started.computeIfAbsent(type, t -> new LongAdder());
        }
        count.increment();
    }

    @Override
    public void commandFailed(CommandFailedEvent event) {
        failed.increment();
    }

    /** Commands sent so far, by type, in name order. */
    Map<String, Long> sent() {
        Map<String, Long> counts = new TreeMap<>();
        started.forEach((type, count) -> counts.put(type, count.sum()));
        return counts;
    }

    /** Commands that failed so far (an error reply, a timeout, a lost connection). */
    long failed() {
        return failed.sum();
    }

    /** {@code after - before}, type by type, leaving out types with no commands in between. */
    static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> difference = new TreeMap<>();
        after.forEach((type, count) -> {
            long delta = count - before.getOrDefault(type, 0L);
            if (delta != 0) {
                difference.put(type, delta);
            }
        });
        return difference;
    }

    /** The sum of the counts. */
    static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
