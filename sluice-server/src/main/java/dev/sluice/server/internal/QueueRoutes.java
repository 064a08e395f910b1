package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobPage;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.WorkerInfo;
import dev.sluice.server.PayloadRedaction;
import dev.sluice.server.internal.Problem.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The API's routes on queues, below {@code /api/v1}: each takes the path's segments and the query's parameters and
 * answers JSON, or throws a {@link Problem}. Reads open a queue only if it exists, so no request creates one.
 */
public final class QueueRoutes {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final int MOST_JOBS_PER_PAGE = 1_000;

    private final Sluice sluice;
    private final WorkerRoutes remote;
    private final PayloadRedaction redaction;
    private final RateChanges rates = new RateChanges();

    /** The routes on the queues of {@code sluice}, showing payloads through {@code redaction}. */
    public QueueRoutes(Sluice sluice, PayloadRedaction redaction) {
        this.sluice = sluice;
        this.redaction = redaction;
        this.remote = new WorkerRoutes(sluice.clock());
    }

    /**
     * Stops the workers in other languages that the routes bridge (their jobs go back to waiting) and reverts the rate
     * changes whose expiry has not come yet.
     */
    public void close() {
        remote.close();
        rates.close();
    }

    /**
     * Serves {@code method} on {@code path} (the segments after {@code /api/v1}) with {@code query}, and the
     * request's JSON {@code body} for the routes that take one (read only then).
     *
     * @return the answer's JSON
     * @throws Problem if the request is refused
     */
    public JsonNode serve(String method, List<String> path, Map<String, String> query, Supplier<JsonNode> body) {
        if (path.isEmpty() || !path.get(0).equals("queues")) {
            throw new Problem(Kind.NOT_FOUND, "no resource at /api/v1/" + String.join("/", path));
        }
        if (path.size() == 1) {
            return only(method, "GET", path, this::queues);
        }
        JobQueue<?> queue = existing(path.get(1));
        if (path.size() == 2) {
            return switch (method) {
                case "GET" -> queue(queue);
                case "DELETE" -> obliterate(queue, query);
                default -> throw new Problem(Kind.METHOD_NOT_ALLOWED, method + " is not allowed here (GET, DELETE)");
            };
        }
        String what = path.get(2);
        if (path.size() == 3) {
            return switch (what) {
                case "jobs" ->
                    method.equals("POST")
                            ? NewJobs.add(queue, body.get())
                            : only(method, "GET", path, () -> jobs(queue, query));
                case "groups" -> only(method, "GET", path, () -> groups(queue, query));
                case "repeatables" -> RepeatRoutes.serve(method, queue, List.of(), body);
                case "workers" ->
                    method.equals("POST")
                            ? remote.register(queue, body.get())
                            : only(method, "GET", path, () -> workers(queue));
                case "pause" -> only(method, "POST", path, () -> pause(queue, query.get("group"), true));
                case "resume" -> only(method, "POST", path, () -> pause(queue, query.get("group"), false));
                case "retry-failed" ->
                    only(method, "POST", path, () -> named(queue).put("retried", queue.retryFailed()));
                case "clean" -> only(method, "POST", path, () -> clean(queue, query));
                case "rate" -> only(method, "PUT", path, () -> rates.change(queue, body.get()));
                case "drain" ->
                    only(method, "POST", path, () -> named(queue).put("removed", queue.drain(flag(query, "delayed"))));
                default -> throw notFound(path);
            };
        }
        if (what.equals("workers")) {
            return remote.serve(method, queue, path.subList(3, path.size()), query, body);
        }
        if (what.equals("repeatables")) {
            return RepeatRoutes.serve(method, queue, path.subList(3, path.size()), body);
        }
        if (what.equals("groups") && path.size() == 4) {
            return only(method, "GET", path, () -> group(queue, path.get(3)));
        }
        if (!what.equals("jobs")) {
            throw notFound(path);
        }
        String id = path.get(3);
        if (path.size() == 4) {
            return switch (method) {
                case "GET" -> job(queue, id);
                case "DELETE" -> remove(queue, id);
                default -> throw new Problem(Kind.METHOD_NOT_ALLOWED, method + " is not allowed here (GET, DELETE)");
            };
        }
        if (path.size() == 5 && path.get(4).equals("retry")) {
            return only(method, "POST", path, () -> retry(queue, id, query.get("from")));
        }
        if (path.size() == 5 && path.get(4).equals("promote")) {
            return only(method, "POST", path, () -> {
                onJob(queue, id, () -> queue.promote(id));
                return JSON.objectNode().put("id", id).put("promoted", true);
            });
        }
        throw notFound(path);
    }

    private static JsonNode only(String method, String allowed, List<String> path, Supplier<JsonNode> route) {
        if (!method.equals(allowed)) {
            throw new Problem(
                    Kind.METHOD_NOT_ALLOWED,
                    method + " is not allowed on /api/v1/" + String.join("/", path) + " (" + allowed + ")");
        }
        return route.get();
    }

    private static Problem notFound(List<String> path) {
        return new Problem(Kind.NOT_FOUND, "no resource at /api/v1/" + String.join("/", path));
    }

    private JobQueue<?> existing(String name) {
        try {
            return sluice.existingQueue(name)
                    .orElseThrow(() -> new Problem(Kind.QUEUE_NOT_FOUND, "queue '" + name + "' does not exist"));
        } catch (IllegalArgumentException malformed) {
            throw new Problem(Kind.INVALID_REQUEST, malformed.getMessage());
        }
    }

    private JsonNode queues() {
        ArrayNode queues = JSON.arrayNode();
        for (String name : sluice.queueNames()) {
            sluice.existingQueue(name).ifPresent(queue -> queues.add(summary(queue)));
        }
        return JSON.objectNode().set("queues", queues);
    }

    private static ObjectNode summary(JobQueue<?> queue) {
        ObjectNode node = JSON.objectNode().put("name", queue.name()).put("paused", queue.isPaused());
        JobJson.putCounts(node, queue.counts());
        List<WorkerInfo> workers = queue.workers();
        node.put("workers", workers.size())
                .put("busy", workers.stream().mapToInt(WorkerInfo::busy).sum());
        return node;
    }

    private static JsonNode queue(JobQueue<?> queue) {
        ObjectNode node = summary(queue);
        JobJson.putStats(node, queue.stats());
        return node;
    }

    private static JsonNode jobs(JobQueue<?> queue, Map<String, String> query) {
        String stateText = query.get("state");
        JobState state = stateText == null ? null : JobJson.stateNamed(stateText);
        if (state == null) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "state must be one of " + JobJson.STATES + ", was " + (stateText == null ? "none" : stateText));
        }
        int limit = number(query, "limit", 100, 1, MOST_JOBS_PER_PAGE);
        String cursor = query.get("cursor");
        if (query.containsKey("offset")) {
            if (cursor != null) {
                throw new Problem(
                        Kind.INVALID_REQUEST, "give cursor or offset, not both: cursor pages hold their place");
            }
            int offset = number(query, "offset", 0, 0, Integer.MAX_VALUE);
            return JSON.objectNode()
                    .put("offset", offset)
                    .put("limit", limit)
                    .set("jobs", summaries(queue.jobs(state, offset, limit)));
        }
        JobPage<?> page;
        try {
            page = queue.jobs(state, cursor == null || cursor.isEmpty() ? null : cursor, limit);
        } catch (IllegalArgumentException badCursor) {
            throw new Problem(Kind.INVALID_REQUEST, badCursor.getMessage());
        }
        ObjectNode node = JSON.objectNode().put("limit", limit);
        node.set("jobs", summaries(page.jobs()));
        return node.put("next", page.next());
    }

    private static ArrayNode summaries(List<? extends Job<?>> page) {
        ArrayNode jobs = JSON.arrayNode();
        for (Job<?> job : page) {
            jobs.add(JobJson.summary(job));
        }
        return jobs;
    }

    private JsonNode job(JobQueue<?> queue, String id) {
        Job<?> job = queue.job(id)
                .orElseThrow(() -> new Problem(
                        Kind.JOB_NOT_FOUND, "job '" + id + "' of queue '" + queue.name() + "' does not exist"));
        byte[] payload = queue.payloadBytes(id).orElse(null);
        return JobJson.detail(job, payload == null ? null : redaction.redact(queue.name(), job, payload));
    }

    /** One group: its counts, pause and limits, and its statistics (throughput, wait and processing times). */
    private static JsonNode group(JobQueue<?> queue, String name) {
        List<GroupInfo> found;
        try {
            found = queue.groups(name, null, 1);
        } catch (IllegalArgumentException malformed) {
            throw new Problem(Kind.INVALID_REQUEST, malformed.getMessage());
        }
        if (found.isEmpty() || !found.get(0).name().equals(name)) {
            throw new Problem(Kind.NOT_FOUND, "queue '" + queue.name() + "' has no group '" + name + "' now");
        }
        ObjectNode node = JobJson.group(found.get(0));
        JobJson.putStats(node, queue.stats(name));
        return node;
    }

    private static JsonNode remove(JobQueue<?> queue, String id) {
        boolean[] removed = new boolean[1];
        onJob(queue, id, () -> removed[0] = queue.remove(id));
        if (!removed[0]) {
            throw new Problem(Kind.JOB_NOT_FOUND, "job '" + id + "' of queue '" + queue.name() + "' does not exist");
        }
        return JSON.objectNode().put("id", id).put("removed", true);
    }

    private static JsonNode retry(JobQueue<?> queue, String id, String from) {
        JobState state = from == null ? JobState.FAILED : JobJson.stateNamed(from);
        if (state != JobState.FAILED && state != JobState.COMPLETED) {
            throw new Problem(Kind.INVALID_REQUEST, "from must be failed or completed, was " + from);
        }
        onJob(queue, id, () -> queue.retry(id, state));
        return JSON.objectNode().put("id", id).put("retried", true);
    }

    private static ObjectNode named(JobQueue<?> queue) {
        return JSON.objectNode().put("queue", queue.name());
    }

    private static JsonNode clean(JobQueue<?> queue, Map<String, String> query) {
        String stateText = query.get("state");
        JobState state = stateText == null ? null : JobJson.stateNamed(stateText);
        if (state != JobState.COMPLETED && state != JobState.FAILED) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "state must be completed or failed, was " + (stateText == null ? "none" : stateText));
        }
        int olderThanMs = number(query, "olderThanMs", 0, 0, Integer.MAX_VALUE);
        return named(queue).put("removed", queue.clean(state, Duration.ofMillis(olderThanMs)));
    }

    private static JsonNode obliterate(JobQueue<?> queue, Map<String, String> query) {
        try {
            queue.obliterate(flag(query, "force"));
        } catch (IllegalStateException refused) {
            throw new Problem(Kind.CONFLICT, refused.getMessage());
        }
        return named(queue).put("obliterated", true);
    }

    /** A query flag: absent or {@code false} is false, {@code true} (or present without a value) is true. */
    private static boolean flag(Map<String, String> query, String name) {
        String text = query.get(name);
        if (text == null || text.equals("false")) {
            return false;
        }
        if (text.isEmpty() || text.equals("true")) {
            return true;
        }
        throw new Problem(Kind.INVALID_REQUEST, name + " must be true or false, was " + text);
    }

    private JsonNode groups(JobQueue<?> queue, Map<String, String> query) {
        String prefix = query.getOrDefault("prefix", "");
        int limit = number(query, "limit", 100, 1, 1_000);
        ArrayNode groups = JSON.arrayNode();
        for (GroupInfo group : queue.groups(prefix, query.get("after"), limit)) {
            ObjectNode node = JobJson.group(group);
            SnapshotBuilder.putWord(
                    node, DashboardWords.group(group, sluice.clock().instant()));
            groups.add(node);
        }
        return JSON.objectNode().set("groups", groups);
    }

    private JsonNode workers(JobQueue<?> queue) {
        ArrayNode workers = JSON.arrayNode();
        for (WorkerInfo worker : queue.workers()) {
            workers.add(remote.mark(queue, JobJson.worker(worker)));
        }
        return JSON.objectNode().set("workers", workers);
    }

    private static JsonNode pause(JobQueue<?> queue, String group, boolean pause) {
        ObjectNode node = JSON.objectNode().put("queue", queue.name());
        try {
            if (group == null) {
                if (pause) {
                    queue.pause();
                } else {
                    queue.resume();
                }
            } else if (pause) {
                queue.pauseGroup(group);
                node.put("group", group);
            } else {
                node.put("group", group).put("wasPaused", queue.resumeGroup(group));
            }
        } catch (IllegalArgumentException malformed) {
            throw new Problem(Kind.INVALID_REQUEST, malformed.getMessage());
        }
        return node.put("paused", pause);
    }

    /** Runs {@code change} on job {@code id}, answering the engine's refusals as problems. */
    private static void onJob(JobQueue<?> queue, String id, Runnable change) {
        try {
            change.run();
        } catch (JobNotFoundException e) {
            throw new Problem(Kind.JOB_NOT_FOUND, e.getMessage());
        } catch (IllegalStateException e) {
            throw new Problem(Kind.CONFLICT, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new Problem(Kind.INVALID_REQUEST, e.getMessage());
        }
    }

    private static int number(Map<String, String> query, String name, int ifAbsent, int min, int max) {
        String text = query.get(name);
        if (text == null) {
            return ifAbsent;
        }
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new Problem(
                Kind.INVALID_REQUEST, name + " must be a whole number from " + min + " to " + max + ", was " + text);
    }
}
