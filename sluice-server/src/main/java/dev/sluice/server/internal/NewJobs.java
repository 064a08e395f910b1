package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.queue.Added;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueFullException;
import dev.sluice.server.internal.Problem.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;

/**
 * A job added over HTTP: {@code {"name": ..., "payload": ..., "options": {...}}}. A payload that is a JSON string is
 * stored as its UTF-8 text, any other JSON value as its JSON text; either way the queue's codec must decode it, so a
 * JSON queue refuses what is not JSON. Everything is checked before the job is added: a refusal adds nothing.
 */
final class NewJobs {
    private static final Set<String> FIELDS = Set.of("name", "payload", "options");
    private static final Set<String> OPTIONS = Set.of("jobId", "group", "priority", "attempts", "delayMs", "timeoutMs");

    private NewJobs() {}

    /** Adds the job {@code body} describes to {@code queue}; its answer: the job's summary and whether a duplicate. */
    static ObjectNode add(JobQueue<?> queue, JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, "the body must be a JSON object with name, payload and options");
        }
        unknown(body, FIELDS, "field");
        JsonNode name = body.get("name");
        if (name == null || !name.isTextual()) {
            throw new Problem(Kind.INVALID_REQUEST, "name must be a string: what kind of job it is");
        }
        JsonNode payload = body.get("payload");
        if (payload == null || payload.isNull()) {
            throw new Problem(Kind.INVALID_REQUEST, "payload is required: a JSON string or any other JSON value");
        }
        byte[] bytes = (payload.isTextual() ? payload.asText() : payload.toString()).getBytes(StandardCharsets.UTF_8);
        JobOptions options = options(body.get("options"));
        try {
            return answer(added(queue, name.asText(), bytes, options));
        } catch (QueueFullException full) {
            throw new Problem(Kind.CONFLICT, full.getMessage());
        } catch (IllegalArgumentException refused) {
            throw new Problem(Kind.INVALID_REQUEST, refused.getMessage());
        }
    }

    private static <T> Added<T> added(JobQueue<T> queue, String name, byte[] bytes, JobOptions options) {
        T payload;
        try {
            payload = queue.codec().decode(bytes);
        } catch (RuntimeException notDecodable) {
            throw new Problem(
                    Kind.INVALID_REQUEST,
                    "payload cannot be stored by queue '" + queue.name() + "': its codec '"
                            + queue.codec().name() + "' does not decode it (" + notDecodable.getMessage() + ")");
        }
        return queue.add(name, payload, options);
    }

    private static ObjectNode answer(Added<?> added) {
        ObjectNode node = JsonNodeFactory.instance.objectNode().put("duplicate", added.duplicate());
        node.set("job", JobJson.summary(added.job()));
        return node;
    }

    private static JobOptions options(JsonNode options) {
        JobOptions.Builder builder = JobOptions.builder();
        if (options == null || options.isNull()) {
            return builder.build();
        }
        if (!options.isObject()) {
            throw new Problem(Kind.INVALID_REQUEST, "options must be a JSON object of " + sorted(OPTIONS));
        }
        unknown(options, OPTIONS, "option");
        try {
            if (options.has("jobId")) {
                builder.jobId(text(options, "jobId"));
            }
            if (options.has("group")) {
                builder.group(text(options, "group"));
            }
            if (options.has("priority")) {
                builder.priority(whole(options, "priority"));
            }
            if (options.has("attempts")) {
                builder.attempts(whole(options, "attempts"));
            }
            if (options.has("delayMs")) {
                builder.delay(Duration.ofMillis(whole(options, "delayMs")));
            }
            if (options.has("timeoutMs")) {
                builder.timeout(Duration.ofMillis(whole(options, "timeoutMs")));
            }
            return builder.build();
        } catch (IllegalArgumentException invalid) {
            throw new Problem(Kind.INVALID_REQUEST, invalid.getMessage());
        }
    }

    private static void unknown(JsonNode object, Set<String> allowed, String what) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new Problem(
                        Kind.INVALID_REQUEST, "unknown " + what + " '" + name + "' (allowed: " + sorted(allowed) + ")");
            }
        }
    }

    private static String text(JsonNode options, String name) {
        JsonNode value = options.get(name);
        if (!value.isTextual()) {
            throw new Problem(Kind.INVALID_REQUEST, name + " must be a string, was " + value);
        }
        return value.asText();
    }

    private static int whole(JsonNode options, String name) {
        JsonNode value = options.get(name);
        if (!value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new Problem(Kind.INVALID_REQUEST, name + " must be a whole number, was " + value);
        }
        return value.asInt();
    }

    private static String sorted(Set<String> names) {
        return String.join(", ", new java.util.TreeSet<>(names));
    }
}
