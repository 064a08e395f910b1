package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dashboard's recent past: per queue, one point per snapshot (about one a second while someone watches), the
 * last {@link #POINTS} of them, so that a page opened now draws its charts at once. Thread-safe.
 */
public final class DashboardHistory {
    /** The points kept per queue: ten minutes of one a second. */
    public static final int POINTS = 600;

    /** One point: when (epoch seconds), throughput (jobs per second) and jobs waiting, running and failed. */
    public record Point(
            double t, double completedPerSecond, double failedPerSecond, long waiting, long active, long failed) {
        /** The point as the snapshot carries it. */
        ObjectNode json() {
            return JsonNodeFactory.instance
                    .objectNode()
                    .put("t", t)
                    .put("completedPerSecond", completedPerSecond)
                    .put("failedPerSecond", failedPerSecond)
                    .put("waiting", waiting)
                    .put("active", active)
                    .put("failed", failed);
        }
    }

    private final Map<String, Deque<Point>> queues = new LinkedHashMap<>();

    /** Adds {@code point} to the history of {@code queue}, dropping its oldest beyond {@link #POINTS}. */
    public synchronized void add(String queue, Point point) {
        Deque<Point> points = queues.computeIfAbsent(queue, name -> new ArrayDeque<>());
        points.addLast(point);
        while (points.size() > POINTS) {
            points.removeFirst();
        }
    }

    /** Forgets the queues not in {@code names} (removed since). */
    public synchronized void retain(Collection<String> names) {
        queues.keySet().retainAll(names);
    }

    /**
     * The history as columns per queue, as charts take them: {@code {"intervalMs": 1000, "queues": {"mail": {"t":
     * [...], "completedPerSecond": [...], "failedPerSecond": [...], "waiting": [...], "active": [...], "failed":
     * [...]}}}}.
     */
    public synchronized ObjectNode json(long intervalMs) {
        ObjectNode root = JsonNodeFactory.instance.objectNode().put("intervalMs", intervalMs);
        ObjectNode byQueue = root.putObject("queues");
        queues.forEach((name, points) -> {
            ObjectNode columns = byQueue.putObject(name);
            ArrayNode t = columns.putArray("t");
            ArrayNode completed = columns.putArray("completedPerSecond");
            ArrayNode failedRate = columns.putArray("failedPerSecond");
            ArrayNode waiting = columns.putArray("waiting");
            ArrayNode active = columns.putArray("active");
            ArrayNode failed = columns.putArray("failed");
            for (Point point : points) {
                t.add(point.t());
                completed.add(point.completedPerSecond());
                failedRate.add(point.failedPerSecond());
                waiting.add(point.waiting());
                active.add(point.active());
                failed.add(point.failed());
            }
        });
        return root;
    }
}
