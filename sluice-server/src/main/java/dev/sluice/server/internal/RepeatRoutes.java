package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import dev.sluice.server.internal.Problem.Kind;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The routes on a queue's repeatable jobs: {@code GET .../repeatables}, {@code PUT .../repeatables/{id}} (a job
 * as {@code POST .../jobs} takes one, and a {@code schedule}), {@code DELETE .../repeatables/{id}}.
 */
final class RepeatRoutes {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final Set<String> SCHEDULE = Set.of("cron", "zone", "fixedRateMs", "fixedDelayMs");

    private RepeatRoutes() {}

    static JsonNode list(JobQueue<?> queue) {
        ArrayNode all = JSON.arrayNode();
        for (RepeatableJob<?> repeatable : queue.repeatables()) {
            all.add(describe(repeatable));
        }
        return JSON.objectNode().set("repeatables", all);
    }

    static JsonNode register(JobQueue<?> queue, String id, JsonNode body) {
        if (body == null || !body.isObject() || !body.has("schedule")) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "the body must be a job as POST .../jobs takes one, with a schedule: {\"cron\": ..., \"zone\": ...},"
                            + " {\"fixedRateMs\": n} or {\"fixedDelayMs\": n}");
        }
        Schedule schedule = schedule(body.get("schedule"));
        ObjectNode job = body.deepCopy();
        job.remove("schedule");
        try {
            return describe(register(queue, id, schedule, job));
        } catch (IllegalArgumentException refused) {
            throw new Problem(Kind.INVALID_REQUEST, refused.getMessage());
        }
    }

    private static <T> RepeatableJob<T> register(JobQueue<T> queue, String id, Schedule schedule, JsonNode job) {
        NewJob<T> template = NewJobs.job(queue, job, "");
        return queue.repeat(id, schedule, template);
    }

    static JsonNode remove(JobQueue<?> queue, String id) {
        if (!queue.removeRepeatable(id)) {
            throw new Problem(Kind.NOT_FOUND, "queue '" + queue.name() + "' has no repeatable job '" + id + "'");
        }
        return JSON.objectNode().put("id", id).put("removed", true);
    }

    private static Schedule schedule(JsonNode node) {
        if (!node.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, "schedule must be an object of " + String.join(", ", SCHEDULE));
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!SCHEDULE.contains(name)) {
                throw new Problem(
                        Kind.INVALID_REQUEST,
                        "unknown field 'schedule." + name + "' (allowed: cron with zone, fixedRateMs, fixedDelayMs)");
            }
        }
        try {
            if (node.has("cron") && node.get("cron").isTextual()) {
                String zone = node.path("zone").asText("UTC");
                return Schedule.cron(node.get("cron").asText(), ZoneId.of(zone));
            }
            if (node.has("fixedRateMs") && node.get("fixedRateMs").canConvertToLong()) {
                return Schedule.fixedRate(
                        Duration.ofMillis(node.get("fixedRateMs").asLong()));
            }
            if (node.has("fixedDelayMs") && node.get("fixedDelayMs").canConvertToLong()) {
                return Schedule.fixedDelay(
                        Duration.ofMillis(node.get("fixedDelayMs").asLong()));
            }
        } catch (IllegalArgumentException | DateTimeException invalid) {
            throw new Problem(Kind.INVALID_REQUEST, "schedule: " + invalid.getMessage());
        }
        throw new Problem(
                Kind.INVALID_REQUEST,
                "schedule must be {\"cron\": \"<5 or 6 fields>\", \"zone\": \"<zone id, UTC by default>\"},"
                        + " {\"fixedRateMs\": n} or {\"fixedDelayMs\": n}, was " + node);
    }

    private static ObjectNode describe(RepeatableJob<?> repeatable) {
        return JSON.objectNode()
                .put("id", repeatable.id())
                .put("schedule", repeatable.schedule().toString())
                .put("name", repeatable.template().name())
                .put("runs", repeatable.runs())
                .put(
                        "nextRun",
                        repeatable.nextRun() == null
                                ? null
                                : repeatable.nextRun().toString());
    }

    /** The segments after {@code .../repeatables}. */
    static JsonNode serve(
            String method, JobQueue<?> queue, List<String> path, java.util.function.Supplier<JsonNode> body) {
        if (path.isEmpty()) {
            if (!method.equals("GET")) {
                throw new Problem(Kind.METHOD_NOT_ALLOWED, method + " is not allowed here (GET)");
            }
            return list(queue);
        }
        if (path.size() != 1) {
            throw new Problem(Kind.NOT_FOUND, "no resource at .../repeatables/" + String.join("/", path));
        }
        return switch (method) {
            case "PUT" -> register(queue, path.get(0), body.get());
            case "DELETE" -> remove(queue, path.get(0));
            default -> throw new Problem(Kind.METHOD_NOT_ALLOWED, method + " is not allowed here (PUT, DELETE)");
        };
    }
}
