package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.queue.Added;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.Retention;
import dev.sluice.server.internal.Problem.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A job added over HTTP: {@code {"name": ..., "payload": ..., "options": {...}}}. A payload that is a JSON string is
 * stored as its UTF-8 text, any other JSON value as its JSON text; either way the queue's codec must decode it, so a
 * JSON queue refuses what is not JSON. {@code {"jobs": [...]}} adds up to {@value #MOST_JOBS_PER_REQUEST} such jobs at
 * once. Everything is checked before any job is added: a refusal adds nothing.
 */
final class NewJobs {
    private static final Set<String> FIELDS = Set.of("name", "payload", "options");
    private static final Set<String> OPTIONS = Set.of(
            "jobId",
            "group",
            "priority",
            "attempts",
            "delayMs",
            "timeoutMs",
            "backoff",
            "keepCompleted",
            "keepFailed",
            "deduplicateForMs",
            "maxRateLimits");
    private static final Set<String> BACKOFF = Set.of("type", "delayMs", "baseMs", "capMs");
    private static final Set<String> RETENTION = Set.of("count", "ageMs");

    /** The most jobs one request adds. */
    static final int MOST_JOBS_PER_REQUEST = 1_000;

    private NewJobs() {}

    /**
     * Adds the job {@code body} describes to {@code queue}, or with {@code {"jobs": [...]}} each job of the list, all
     * or none; the answer: the job's summary and whether it was a duplicate, or a list of those.
     */
    static ObjectNode add(JobQueue<?> queue, JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "the body must be a JSON object with name, payload and options, or {\"jobs\": [...]} of those");
        }
        try {
            if (body.has("jobs")) {
                return bulk(queue, body);
            }
            return answer(addOne(queue, body));
        } catch (QueueFullException full) {
            throw new Problem(Kind.CONFLICT, full.getMessage());
        } catch (IllegalArgumentException refused) {
            throw new Problem(Kind.INVALID_REQUEST, refused.getMessage());
        }
    }

    private static ObjectNode bulk(JobQueue<?> queue, JsonNode body) {
        unknown(body, Set.of("jobs"), "field", "");
        JsonNode jobs = body.get("jobs");
        if (!jobs.isArray() || jobs.isEmpty() || jobs.size() > MOST_JOBS_PER_REQUEST) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "jobs must be a list of 1 to " + MOST_JOBS_PER_REQUEST + " jobs, was "
                            + (jobs.isArray()
                                    ? jobs.size() + " jobs"
                                    : jobs.getNodeType().toString().toLowerCase()));
        }
        return addAll(queue, jobs);
    }

    private static <T> ObjectNode addAll(JobQueue<T> queue, JsonNode jobs) {
        List<NewJob<T>> adds = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            adds.add(job(queue, jobs.get(i), "jobs[" + i + "]."));
        }
        ArrayNode answers = JsonNodeFactory.instance.arrayNode();
        for (Added<T> added : queue.addBulk(adds)) {
            answers.add(answer(added));
        }
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.set("jobs", answers);
        return node;
    }

    private static <T> Added<T> addOne(JobQueue<T> queue, JsonNode body) {
        NewJob<T> job = job(queue, body, "");
        return queue.add(job.name(), job.payload(), job.options());
    }

    /** The job {@code body} describes, its payload decoded by the queue's codec; {@code at} prefixes field names. */
    static <T> NewJob<T> job(JobQueue<T> queue, JsonNode body, String at) {
        if (body == null || !body.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, at + "job must be a JSON object with name, payload and options");
        }
        unknown(body, FIELDS, "field", at);
        JsonNode name = body.get("name");
        if (name == null || !name.isTextual()) {
            throw new Problem(Kind.INVALID_REQUEST, at + "name must be a string: what kind of job it is");
        }
        JsonNode payload = body.get("payload");
        if (payload == null || payload.isNull()) {
            throw new Problem(Kind.INVALID_REQUEST, at + "payload is required: a JSON string or any other JSON value");
        }
        byte[] bytes = (payload.isTextual() ? payload.asText() : payload.toString()).getBytes(StandardCharsets.UTF_8);
        JobOptions options = options(body.get("options"), at + "options.");
        return new NewJob<>(name.asText(), decoded(queue, bytes, at), options);
    }

    private static <T> T decoded(JobQueue<T> queue, byte[] bytes, String at) {
        try {
            return queue.codec().decode(bytes);
        } catch (RuntimeException notDecodable) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    at + "payload cannot be stored by queue '" + queue.name() + "': its codec '"
                            + queue.codec().name() + "' does not decode it (" + notDecodable.getMessage() + ")");
        }
    }

    private static ObjectNode answer(Added<?> added) {
        ObjectNode node = JsonNodeFactory.instance.objectNode().put("duplicate", added.duplicate());
        node.set("job", JobJson.summary(added.job()));
        return node;
    }

    private static JobOptions options(JsonNode options, String at) {
        JobOptions.Builder builder = JobOptions.builder();
        if (options == null || options.isNull()) {
            return builder.build();
        }
        if (!options.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, "options must be a JSON object of " + sorted(OPTIONS));
        }
        unknown(options, OPTIONS, "option", at);
        try {
            if (options.has("jobId")) {
                builder.jobId(text(options, "jobId", at));
            }
            if (options.has("group")) {
                builder.group(text(options, "group", at));
            }
            if (options.has("priority")) {
                builder.priority(whole(options, "priority", at));
            }
            if (options.has("attempts")) {
                builder.attempts(whole(options, "attempts", at));
            }
            if (options.has("delayMs")) {
                builder.delay(millis(options, "delayMs", at));
            }
            if (options.has("timeoutMs")) {
                builder.timeout(millis(options, "timeoutMs", at));
            }
            if (options.has("backoff")) {
                builder.backoff(backoff(options.get("backoff"), at + "backoff."));
            }
            if (options.has("keepCompleted")) {
                builder.keepCompleted(retention(options.get("keepCompleted"), at + "keepCompleted"));
            }
            if (options.has("keepFailed")) {
                builder.keepFailed(retention(options.get("keepFailed"), at + "keepFailed"));
            }
            if (options.has("deduplicateForMs")) {
                builder.deduplicateFor(millis(options, "deduplicateForMs", at));
            }
            if (options.has("maxRateLimits")) {
                builder.maxRateLimits(whole(options, "maxRateLimits", at));
            }
            return builder.build();
        } catch (IllegalArgumentException invalid) {
            throw new Problem(Kind.INVALID_REQUEST, at + invalid.getMessage());
        }
    }

    private static Backoff backoff(JsonNode backoff, String at) {
        if (!backoff.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, at + "backoff must be an object of " + sorted(BACKOFF));
        }
        unknown(backoff, BACKOFF, "field", at);
        String type = backoff.has("type") ? text(backoff, "type", at) : "";
        return switch (type) {
            case "none" -> Backoff.none();
            case "fixed" -> Backoff.fixed(millis(backoff, "delayMs", at));
            case "exponential" -> Backoff.exponential(millis(backoff, "baseMs", at), millis(backoff, "capMs", at));
            case "exponentialWithJitter" ->
                Backoff.exponentialWithJitter(millis(backoff, "baseMs", at), millis(backoff, "capMs", at));
            default ->
                throw new Problem(
                        Kind.INVALID_REQUEST,
                        at + "type must be none, fixed (with delayMs), exponential or exponentialWithJitter (with"
                                + " baseMs and capMs), was " + (type.isEmpty() ? "none given" : type));
        };
    }

    /** {@code "all"}, {@code "none"}, or {@code {"count": n, "ageMs": m}} with either or both. */
    private static Retention retention(JsonNode retention, String at) {
        if (retention.isTextual() && retention.asText().equals("all")) {
            return Retention.keepAll();
        }
        if (retention.isTextual() && retention.asText().equals("none")) {
            return Retention.keepNone();
        }
        if (!retention.isObject() || retention.isEmpty()) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    at + " must be \"all\", \"none\" or an object of count and/or ageMs, was " + retention);
        }
        unknown(retention, RETENTION, "field", at + ".");
        int count = retention.has("count") ? whole(retention, "count", at + ".") : Integer.MAX_VALUE;
        Duration age = retention.has("ageMs") ? millis(retention, "ageMs", at + ".") : null;
        return new Retention(count, age);
    }

    private static void unknown(JsonNode object, Set<String> allowed, String what, String at) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new Problem(
                        Kind.INVALID_REQUEST,
                        "unknown " + what + " '" + at + name + "' (allowed: " + sorted(allowed) + ")");
            }
        }
    }

    private static String text(JsonNode object, String name, String at) {
        JsonNode value = object.get(name);
        if (!value.isTextual()) {
            throw new Problem(Kind.INVALID_REQUEST, at + name + " must be a string, was " + value);
        }
        return value.asText();
    }

    private static int whole(JsonNode object, String name, String at) {
        JsonNode value = object.get(name);
        if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    at + name + " must be a whole number, was " + (value == null ? "none given" : value));
        }
        return value.asInt();
    }

    private static Duration millis(JsonNode object, String name, String at) {
        JsonNode value = object.get(name);
        if (value == null || !value.canConvertToLong() || !value.isIntegralNumber() || value.asLong() < 0) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    at + name + " must be a whole number of milliseconds, 0 or more, was "
                            + (value == null ? "none given" : value));
        }
        return Duration.ofMillis(value.asLong());
    }

    private static String sorted(Set<String> names) {
        return String.join(", ", new java.util.TreeSet<>(names));
    }
}
