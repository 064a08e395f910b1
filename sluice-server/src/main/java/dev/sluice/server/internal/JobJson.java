package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.WorkerInfo;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The JSON of jobs, groups, workers, counts and latencies, the same for the command line ({@code ./sluice jobs}) and
 * the server's API. Times are ISO-8601 text
 * ({@code 2026-05-01T10:15:30.123Z}) or null, durations whole or fractional milliseconds, states and outcomes in
 * lower case as the command line writes them, limits that do not bound anything null.
 */
public final class JobJson {
    /** The states as {@code --state} writes them, for messages. */
    public static final String STATES =
            Arrays.stream(JobState.values()).map(JobJson::state).collect(Collectors.joining(", "));

    private JobJson() {}

    /** {@code state} as the command line writes it: {@code failed}. */
    public static String state(JobState state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    /** The state the command line wrote as {@code text}, in any case; null if it names none. */
    public static JobState stateNamed(String text) {
        for (JobState state : JobState.values()) {
            if (state.name().equalsIgnoreCase(text)) {
                return state;
            }
        }
        return null;
    }

    /**
     * A line of {@code jobs}: id, name, group, state, attemptsMade, its times (createdAt, runAt, startedAt,
     * finishedAt) and failureReason.
     */
    public static ObjectNode summary(Job<?> job) {
        ObjectNode node = JsonNodeFactory.instance
                .objectNode()
                .put("id", job.id())
                .put("name", job.name())
                .put("group", job.group())
                .put("state", state(job.state()))
                .put("attemptsMade", job.attemptsMade());
        node.put("createdAt", instant(job.createdAt()))
                .put("runAt", instant(job.runAt()))
                .put("startedAt", instant(job.startedAt()))
                .put("finishedAt", instant(job.finishedAt()))
                .put(
                        "failureReason",
                        job.failure() == null ? null : job.failure().reason());
        return node;
    }

    /**
     * What {@code job} prints: the {@link #summary}, then the job's resolved options, progress, rateLimits,
     * attempts, failure, result and payload ({@code payload}, the bytes as stored).
     */
    public static ObjectNode detail(Job<?> job, byte[] payload) {
        ObjectNode node = summary(job);
        JobOptions options = job.options();
        node.putObject("options")
                .put("priority", options.priority())
                .put("attempts", options.attempts())
                .put("delayMs", millis(options.delay()))
                .put("timeoutMs", millis(options.timeout()))
                .put("backoff", text(options.backoff()))
                .put("keepCompleted", text(options.keepCompleted()))
                .put("keepFailed", text(options.keepFailed()))
                .put("deduplicateForMs", millis(options.deduplicateFor()))
                .put("maxRateLimits", options.maxRateLimits());
        node.put("progress", job.progress()).put("rateLimits", job.rateLimits());
        ArrayNode attempts = node.putArray("attempts");
        for (Job.Attempt attempt : job.attempts()) {
            attempts.addObject()
                    .put("number", attempt.number())
                    .put("startedAt", instant(attempt.startedAt()))
                    .put("finishedAt", instant(attempt.finishedAt()))
                    .put(
                            "outcome",
                            attempt.outcome() == null
                                    ? null
                                    : attempt.outcome().name().toLowerCase(Locale.ROOT))
                    .put("error", attempt.error());
        }
        Job.Failure failure = job.failure();
        if (failure == null) {
            node.putNull("failure");
        } else {
            node.putObject("failure")
                    .put("reason", failure.reason())
                    .put("exceptionClass", failure.exceptionClass())
                    .put("stackTrace", failure.stackTrace());
        }
        putBytes(node, "result", job.encodedResult());
        putBytes(node, "payload", payload);
        return node;
    }

    /**
     * {@code bytes} as field {@code name}: UTF-8 text if they are valid UTF-8, else base64; field {@code
     * nameEncoding} says which ({@code utf-8} or {@code base64}). Both are null when {@code bytes} is.
     */
    public static void putBytes(ObjectNode node, String name, byte[] bytes) {
        if (bytes == null) {
            node.putNull(name).putNull(name + "Encoding");
            return;
        }
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            node.put(name, text).put(name + "Encoding", "utf-8");
        } catch (CharacterCodingException notUtf8) {
            node.put(name, Base64.getEncoder().encodeToString(bytes)).put(name + "Encoding", "base64");
        }
    }

    /** A line of {@code groups}: its jobs by state, its pauses and the limits it runs under. */
    public static ObjectNode group(GroupInfo group) {
        ObjectNode node = JsonNodeFactory.instance
                .objectNode()
                .put("name", group.name())
                .put("waiting", group.waiting())
                .put("delayed", group.delayed())
                .put("active", group.active())
                .put("paused", group.paused())
                .put("pausedUntil", instant(group.pausedUntil()));
        GroupLimits limits = group.limits();
        node.putObject("limits")
                .put("concurrency", bound(limits.concurrency()))
                .put("maxQueued", bound(limits.maxQueued()))
                .put("rate", text(limits.rate()));
        node.put("ownLimits", group.ownLimits());
        return node;
    }

    /** A line of {@code workers}. */
    public static ObjectNode worker(WorkerInfo worker) {
        ObjectNode node = JsonNodeFactory.instance
                .objectNode()
                .put("id", worker.id())
                .put("host", worker.host())
                .put("pid", worker.pid())
                .put("concurrency", worker.concurrency())
                .put("busy", worker.busy());
        ArrayNode running = node.putArray("running");
        worker.running().forEach(running::add);
        node.put("startedAt", instant(worker.startedAt()))
                .put("lastSeen", instant(worker.lastSeen()))
                .put("leaseEnds", instant(worker.leaseEnds()));
        return node;
    }

    /** {@code counts} as an object with a field per state. */
    public static void putCounts(ObjectNode node, JobCounts counts) {
        node.putObject("counts")
                .put("waiting", counts.waiting())
                .put("delayed", counts.delayed())
                .put("active", counts.active())
                .put("completed", counts.completed())
                .put("failed", counts.failed());
    }

    /**
     * {@code stats} beyond the counts: {@code totals} (added, completed, failed), {@code completedPerSecond}, and the
     * {@code waitTime} and {@code processingTime} latencies.
     */
    public static void putStats(ObjectNode node, QueueStats stats) {
        node.putObject("totals")
                .put("added", stats.added())
                .put("completed", stats.completed())
                .put("failed", stats.failed());
        node.put("completedPerSecond", rounded(stats.completedPerSecond()));
        putLatency(node, "waitTime", stats.waitTime());
        putLatency(node, "processingTime", stats.processingTime());
    }

    /** {@code latency} as field {@code name}: count, p50Ms, p90Ms, p99Ms, maxMs. */
    public static void putLatency(ObjectNode node, String name, QueueStats.Latency latency) {
        node.putObject(name)
                .put("count", latency.count())
                .put("p50Ms", millis(latency.p50()))
                .put("p90Ms", millis(latency.p90()))
                .put("p99Ms", millis(latency.p99()))
                .put("maxMs", millis(latency.max()));
    }

    /** {@code value} to 3 decimal places. */
    public static double rounded(double value) {
        return Math.round(value * 1000) / 1000.0;
    }

    private static String instant(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    /** In milliseconds, to the microsecond; null for null. */
    private static Double millis(Duration duration) {
        return duration == null ? null : rounded(duration.getSeconds() * 1e3 + duration.getNano() / 1e6);
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** A bound, null where it bounds nothing ({@link Integer#MAX_VALUE}). */
    private static Integer bound(int value) {
        return value == Integer.MAX_VALUE ? null : value;
    }
}
