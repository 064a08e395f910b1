package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.WorkerInfo;
import dev.sluice.time.SluiceClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an engine into one dashboard snapshot: per queue its counts, pause, throughput since the previous snapshot,
 * latencies, word ({@link DashboardWords}), top groups and workers; then the {@link EngineSection}s. Keeps what
 * throughput needs between snapshots and feeds the {@link DashboardHistory}. Not thread-safe: {@link DashboardFeed}
 * calls it from one thread at a time.
 */
final class SnapshotBuilder {
    /** The groups read per queue and snapshot: the first page by name. */
    static final int GROUPS_READ = 200;

    /** The groups a snapshot carries per queue: throttled ones first, then the busiest. */
    static final int TOP_GROUPS = 10;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private record Totals(long completed, long failed, long nanos) {}

    private final Sluice sluice;
    private final List<EngineSection> sections;
    private final LimiterTally limiters;
    private final DashboardHistory history;
    private final Map<String, Totals> previous = new HashMap<>();
    private long builds;

    SnapshotBuilder(Sluice sluice, List<EngineSection> sections, LimiterTally limiters, DashboardHistory history) {
        this.sluice = sluice;
        this.sections = List.copyOf(sections);
        this.limiters = limiters;
        this.history = history;
    }

    /**
     * Reads the engine now.
     *
     * @param nowNanos a monotonic reading ({@link System#nanoTime()}) for throughput's elapsed time
     * @return the snapshot, with {@code id} one more than the previous one's
     * @throws dev.sluice.SluiceException if the engine cannot be reached
     */
    ObjectNode build(long nowNanos) {
        Instant now = sluice.clock().instant();
        ObjectNode root = JSON.objectNode().put("id", builds + 1).put("at", now.toString());
        ArrayNode queues = root.putArray("queues");
        List<String> names = sluice.queueNames();
        for (String name : names) {
            sluice.existingQueue(name).ifPresent(queue -> queues.add(queue(queue, now, nowNanos)));
        }
        previous.keySet().retainAll(names);
        history.retain(names);
        root.set("limiters", limiters.read(nowNanos));
        ObjectNode engine = root.putObject("engine");
        for (EngineSection section : sections) {
            engine.set(section.name(), section.read());
        }
        builds++;
        return root;
    }

    private ObjectNode queue(JobQueue<?> queue, Instant now, long nowNanos) {
        boolean paused = queue.isPaused();
        QueueStats stats = queue.stats();
        List<WorkerInfo> workers = queue.workers();
        List<GroupInfo> groups = queue.groups("", null, GROUPS_READ);
        int concurrency = queue.options().concurrency();

        Totals before = previous.get(queue.name());
        Totals after = new Totals(stats.completed(), stats.failed(), nowNanos);
        previous.put(queue.name(), after);
        double completedPerSecond;
        double failedPerSecond;
        boolean progressed;
        if (before == null || after.nanos() <= before.nanos()) {
            completedPerSecond = stats.completedPerSecond();
            failedPerSecond = 0;
            progressed = true;
        } else {
            double seconds = (after.nanos() - before.nanos()) / 1e9;
            completedPerSecond = Math.max(0, after.completed() - before.completed()) / seconds;
            failedPerSecond = Math.max(0, after.failed() - before.failed()) / seconds;
            progressed = after.completed() != before.completed() || after.failed() != before.failed();
        }
        DashboardHistory.Point point = new DashboardHistory.Point(
                SluiceClock.toEpochNanos(now) / 1e9,
                JobJson.rounded(completedPerSecond),
                JobJson.rounded(failedPerSecond),
                stats.counts().waiting(),
                stats.counts().active(),
                stats.counts().failed());
        history.add(queue.name(), point);

        DashboardWords.Word word =
                DashboardWords.queue(paused, stats.counts(), concurrency, workers, groups, progressed, now);
        ObjectNode node = JSON.objectNode().put("name", queue.name()).put("paused", paused);
        putWord(node, word);
        JobJson.putCounts(node, stats.counts());
        JobJson.putStats(node, stats);
        node.putObject("throughput")
                .put("completedPerSecond", point.completedPerSecond())
                .put("failedPerSecond", point.failedPerSecond());
        node.set("point", point.json());
        node.put("concurrency", concurrency == Integer.MAX_VALUE ? null : concurrency)
                .put("rate", stats.rate() == null ? null : stats.rate().toString());
        node.put("slots", workers.stream().mapToInt(WorkerInfo::concurrency).sum())
                .put("busy", workers.stream().mapToInt(WorkerInfo::busy).sum());
        ArrayNode workerNodes = node.putArray("workers");
        workers.forEach(worker -> workerNodes.add(JobJson.worker(worker)));
        node.set("groups", topGroups(groups, now));
        return node;
    }

    /** The throttled groups first (paused, rate-limited, at concurrency), then the most jobs, then by name. */
    private static ObjectNode topGroups(List<GroupInfo> groups, Instant now) {
        record Ranked(GroupInfo group, DashboardWords.Word word) {}
        List<Ranked> ranked = new ArrayList<>();
        for (GroupInfo group : groups) {
            ranked.add(new Ranked(group, DashboardWords.group(group, now)));
        }
        ranked.sort(Comparator.comparing((Ranked r) -> !r.word().throttled())
                .thenComparing(r ->
                        -(r.group().waiting() + r.group().delayed() + r.group().active()))
                .thenComparing(r -> r.group().name()));
        ObjectNode node = JSON.objectNode().put("read", groups.size()).put("more", groups.size() == GROUPS_READ);
        ArrayNode top = node.putArray("top");
        for (Ranked r : ranked.subList(0, Math.min(TOP_GROUPS, ranked.size()))) {
            ObjectNode group =
                    JobJson.group(r.group()).put("mayStart", r.group().mayStart(now));
            putWord(group, r.word());
            top.add(group);
        }
        return node;
    }

    /** Fields {@code word} and {@code until} (ISO-8601, or null). */
    static void putWord(ObjectNode node, DashboardWords.Word word) {
        node.put("word", word.word())
                .put("until", word.until() == null ? null : word.until().toString());
    }
}
