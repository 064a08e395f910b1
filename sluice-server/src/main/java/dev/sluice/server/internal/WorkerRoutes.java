package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.UnrecoverableJobException;
import dev.sluice.server.internal.Problem.Kind;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The routes of workers in other languages, below {@code /api/v1/queues/{q}/workers}:
 *
 * <ul>
 *   <li>{@code POST} (body {@code {"name", "concurrency", "leaseMs"}}): registers one, answering its {@code workerId};
 *   <li>{@code GET /{w}}: its state and leases; {@code DELETE /{w}}: stops it, letting its claimed jobs be reported
 *       for up to one lease time;
 *   <li>{@code POST /{w}/claim?waitMs=N}: a job and its lease {@code token}, or no content if none came in time;
 *   <li>{@code POST /{w}/leases/{token}/renew}, {@code /complete} ({@code {"result"}}), {@code /fail} ({@code
 *       {"error", "retry"}}), {@code /rate-limited} ({@code {"delayMs", "scope"}}).
 * </ul>
 *
 * A lease that has ended answers a conflict and changes nothing. The registration's answer is the only one with a
 * {@code workerId} field ({@link #registered}), and a claim that found no job answers a missing node.
 */
public final class WorkerRoutes {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Set<String> REGISTER = Set.of("name", "concurrency", "leaseMs");
    private static final Set<String> COMPLETE = Set.of("result");
    private static final Set<String> FAIL = Set.of("error", "retry");
    private static final Set<String> RATE_LIMITED = Set.of("delayMs", "scope");

    /** The most slots one remote worker has. */
    static final int MOST_CONCURRENCY = 1_000;

    /** The longest a claim waits for a job, in milliseconds. */
    static final int MOST_WAIT_MS = 60_000;

    /** The shortest and longest lease, in milliseconds: those of a Java worker's lease on a shared engine. */
    static final long LEAST_LEASE_MS = 1_000;

    static final long MOST_LEASE_MS = Duration.ofDays(1).toMillis();

    /** The longest error message kept from a remote worker, in characters. */
    static final int MOST_ERROR_CHARS = 10_000;

    private final RemoteWorkers workers;

    /** The routes, leases timed on {@code clock} (the engine's). */
    public WorkerRoutes(SluiceClock clock) {
        this.workers = new RemoteWorkers(clock);
    }

    /** Whether {@code answer} is a registration's, to be answered 201 Created. */
    public static boolean registered(JsonNode answer) {
        return answer.has("workerId");
    }

    /** Registers a remote worker on {@code queue} as {@code body} describes. */
    public JsonNode register(JobQueue<?> queue, JsonNode body) {
        JsonNode fields = object(body, REGISTER, "name, and optionally concurrency and leaseMs");
        JsonNode name = fields.get("name");
        if (name == null
                || !name.isTextual()
                || name.asText().isBlank()
                || name.asText().length() > 200) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "name must be a string of 1 to 200 characters that says who the worker is, was " + name);
        }
        int concurrency = (int) whole(fields, "concurrency", 1, 1, MOST_CONCURRENCY);
        long leaseMs = whole(fields, "leaseMs", 30_000, LEAST_LEASE_MS, MOST_LEASE_MS);
        RemoteWorker worker = workers.start(
                queue, name.asText(), concurrency, Duration.ofMillis(leaseMs).toNanos());
        return JSON.objectNode()
                .put("workerId", worker.id)
                .put("name", worker.name)
                .put("queue", queue.name())
                .put("concurrency", concurrency)
                .put("leaseMs", leaseMs);
    }

    /**
     * Serves {@code method} on {@code path}, the segments after {@code /api/v1/queues/{q}/workers}: at least one.
     *
     * @throws Problem if the request is refused
     */
    public JsonNode serve(
            String method, JobQueue<?> queue, List<String> path, Map<String, String> query, Supplier<JsonNode> body) {
        RemoteWorker worker = workers.worker(queue.name(), path.get(0));
        String where = "/api/v1/queues/" + queue.name() + "/workers/" + String.join("/", path);
        if (path.size() == 1) {
            return switch (method) {
                case "GET" -> describe(worker);
                case "DELETE" -> {
                    worker.stop(Duration.ofNanos(worker.leaseNanos), "stopped by DELETE");
                    yield JSON.objectNode().put("id", worker.id).put("stopping", true);
                }
                default ->
                    throw new Problem(
                            Kind.METHOD_NOT_ALLOWED, method + " is not allowed on " + where + " (GET, DELETE)");
            };
        }
        if (!method.equals("POST")) {
            throw new Problem(Kind.METHOD_NOT_ALLOWED, method + " is not allowed on " + where + " (POST)");
        }
        if (path.size() == 2 && path.get(1).equals("claim")) {
            return claim(worker, query);
        }
        if (path.size() != 4 || !path.get(1).equals("leases")) {
            throw new Problem(Kind.NOT_FOUND, "no resource at " + where);
        }
        String action = path.get(3);
        if (!Set.of("renew", "complete", "fail", "rate-limited").contains(action)) {
            throw new Problem(
                    Kind.NOT_FOUND,
                    "no resource at " + where + " (a lease has renew, complete, fail and rate-limited)");
        }
        worker.heard();
        RemoteLease lease = workers.lease(worker, path.get(2));
        return switch (action) {
            case "renew" -> {
                long endsAt = worker.renew(lease);
                yield JSON.objectNode()
                        .put("token", path.get(2))
                        .put("leaseEndsAt", SluiceClock.toInstant(endsAt).toString());
            }
            case "complete" -> complete(lease, body.get());
            case "fail" -> fail(lease, body.get());
            default -> rateLimited(lease, body.get());
        };
    }

    private static JsonNode claim(RemoteWorker worker, Map<String, String> query) {
        long waitMs = number(query, "waitMs", 0, MOST_WAIT_MS);
        RemoteLease lease;
        try {
            lease = worker.claim(Duration.ofMillis(waitMs).toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Problem(Kind.UNAVAILABLE, "the server is stopping");
        }
        if (lease == null) {
            return MissingNode.getInstance();
        }
        JobContext<?> context = lease.context();
        ObjectNode node = JSON.objectNode()
                .put("id", lease.jobId())
                .put("name", context.job().name())
                .put("group", context.job().group())
                .put("attempt", context.attempt())
                .put("token", lease.token())
                .put("leaseEndsAt", SluiceClock.toInstant(lease.endsAt()).toString())
                .put("leaseMs", worker.leaseNanos / 1_000_000);
        JobJson.putBytes(node, "payload", lease.payload());
        return node;
    }

    private static JsonNode complete(RemoteLease lease, JsonNode body) {
        JsonNode fields = optionalObject(body, COMPLETE, "result");
        JsonNode result = fields.get("result");
        Result done = result == null || result.isNull()
                ? Result.done()
                : Result.done(result.isTextual() ? result.asText() : result.toString());
        lease.finish(done, null, "completed");
        return JSON.objectNode().put("id", lease.jobId()).put("completed", true);
    }

    private static JsonNode fail(RemoteLease lease, JsonNode body) {
        JsonNode fields = object(body, FAIL, "error, and optionally retry");
        JsonNode error = fields.get("error");
        if (error == null || !error.isTextual() || error.asText().isBlank()) {
            throw new Problem(Kind.INVALID_REQUEST, "error must be a string saying what went wrong, was " + error);
        }
        JsonNode retryNode = fields.get("retry");
        if (retryNode != null && !retryNode.isBoolean()) {
            throw new Problem(Kind.INVALID_REQUEST, "retry must be true or false, was " + retryNode);
        }
        boolean retry = retryNode == null || retryNode.asBoolean();
        String message = error.asText();
        if (message.length() > MOST_ERROR_CHARS) {
            message = message.substring(0, MOST_ERROR_CHARS) + "... (cut at " + MOST_ERROR_CHARS + " characters)";
        }
        Exception failure =
                retry ? new RemoteLease.RemoteFailureException(message) : new UnrecoverableJobException(message);
        lease.finish(null, failure, retry ? "failed" : "failed for good");
        return JSON.objectNode().put("id", lease.jobId()).put("failed", true).put("retry", retry);
    }

    private static JsonNode rateLimited(RemoteLease lease, JsonNode body) {
        JsonNode fields = object(body, RATE_LIMITED, "delayMs, and optionally scope");
        if (!fields.has("delayMs")) {
            throw new Problem(Kind.INVALID_REQUEST, "delayMs is required: how long the job's group (or queue) pauses");
        }
        long delayMs = whole(fields, "delayMs", 0, 0, Long.MAX_VALUE / 1_000_000);
        JsonNode scopeNode = fields.get("scope");
        String scopeText = scopeNode == null ? "group" : scopeNode.isTextual() ? scopeNode.asText() : "";
        Result.Scope scope = switch (scopeText) {
            case "group" -> Result.Scope.GROUP;
            case "queue" -> Result.Scope.QUEUE;
            default -> throw new Problem(Kind.INVALID_REQUEST, "scope must be group or queue, was " + scopeNode);
        };
        Result limited;
        try {
            limited = Result.rateLimited(scope, Duration.ofMillis(delayMs));
        } catch (IllegalArgumentException outOfRange) {
            throw new Problem(Kind.INVALID_REQUEST, outOfRange.getMessage());
        }
        lease.finish(limited, null, "rate limited");
        return JSON.objectNode()
                .put("id", lease.jobId())
                .put("rateLimited", true)
                .put("delayMs", delayMs);
    }

    private static JsonNode describe(RemoteWorker worker) {
        ObjectNode node = JSON.objectNode()
                .put("id", worker.id)
                .put("name", worker.name)
                .put("queue", worker.queue.name())
                .put("concurrency", worker.concurrency)
                .put("leaseMs", worker.leaseNanos / 1_000_000)
                .put("stopping", worker.stopping())
                .put("claimsWaiting", worker.claimsWaiting())
                .put("startedAt", SluiceClock.toInstant(worker.startedAt).toString())
                .put("lastHeard", SluiceClock.toInstant(worker.lastHeard()).toString());
        ArrayNode leases = node.putArray("leases");
        for (RemoteLease lease : worker.held()) {
            if (lease.held()) {
                leases.addObject()
                        .put("id", lease.jobId())
                        .put("attempt", lease.context().attempt())
                        .put(
                                "leaseEndsAt",
                                SluiceClock.toInstant(lease.endsAt()).toString());
            }
        }
        return node;
    }

    /**
     * Marks {@code worker}, a line of {@code GET /api/v1/queues/{q}/workers} of {@code queue}, with the name and id of
     * the remote worker it bridges ({@code remote}, {@code remoteId}), or nulls if it bridges none.
     */
    public ObjectNode mark(JobQueue<?> queue, ObjectNode worker) {
        List<String> running = new ArrayList<>();
        worker.path("running").forEach(id -> running.add(id.asText()));
        for (RemoteWorker remote : workers.of(queue.name())) {
            if (remote.bridges(worker.path("id").asText(), running)) {
                return worker.put("remote", remote.name).put("remoteId", remote.id);
            }
        }
        return worker.putNull("remote").putNull("remoteId");
    }

    /** Stops every remote worker at once; their jobs go back to waiting without using an attempt. */
    public void close() {
        workers.close();
    }

    private static JsonNode object(JsonNode body, Set<String> allowed, String expected) {
        if (body == null || !body.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, "the body must be a JSON object with " + expected);
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new Problem(
                        Kind.INVALID_REQUEST,
                        "unknown field '" + name + "' (allowed: " + String.join(", ", new TreeSet<>(allowed)) + ")");
            }
        }
        return body;
    }

    /** {@code body} as {@link #object}, where no body at all stands for an empty object. */
    private static JsonNode optionalObject(JsonNode body, Set<String> allowed, String expected) {
        return body == null || body.isMissingNode() ? JSON.objectNode() : object(body, allowed, expected);
    }

    private static long whole(JsonNode fields, String name, long ifAbsent, long min, long max) {
        JsonNode value = fields.get(name);
        if (value == null) {
            return ifAbsent;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.asLong() < min || value.asLong() > max) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    name + " must be a whole number from " + min + " to " + max + ", was " + value);
        }
        return value.asLong();
    }

    private static long number(Map<String, String> query, String name, long min, long max) {
        String text = query.get(name);
        if (text == null) {
            return min;
        }
        try {
            long value = Long.parseLong(text);
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
