package dev.sluice.jackson;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.sluice.queue.Codec;
import java.io.IOException;

/**
 * Payloads and results as JSON documents, through Jackson: records (nested ones too), {@code java.time} types and
 * generic types such as {@code List<Order>}.
 *
 * <pre>{@code
 * record Order(String id, Instant placedAt, List<Line> lines) {}
 *
 * JobQueue<Order> orders = sluice.queue("orders", JsonCodec.of(Order.class));
 * JsonCodec<Receipt> receipts = JsonCodec.of(Receipt.class);
 * orders.worker(job -> Result.done(ship(job.payload()), receipts), WorkerOptions.concurrency(4));
 * ...
 * Receipt receipt = orders.job(id).orElseThrow().result(receipts);
 * }</pre>
 *
 * <h2>The default mapper</h2>
 *
 * {@link #of(Class)} and {@link #of(TypeReference)} use a mapper of this module's own, made as {@code
 * JsonMapper.builder()} with
 *
 * <ul>
 *   <li>the {@code JavaTimeModule} (jackson-datatype-jsr310), writing {@code java.time} values as ISO-8601 text
 *       ({@code "2026-01-01T00:00:00Z"}, {@code "PT1.5S"}), a zoned date-time with its zone id, and reading offsets
 *       and zones back as they were written rather than moved to UTC;
 *   <li>unknown properties ignored, so that a producer that adds a field to its payload can be deployed before the
 *       workers that read it.
 * </ul>
 *
 * Everything else is Jackson's default: records, enums, collections and maps work as they are; a {@code null}
 * component is written as {@code null} and read back as {@code null}. Pass a mapper of your own to the other
 * factories for other settings.
 *
 * <h2>The name</h2>
 *
 * A queue remembers its codec's {@link #name()} and refuses to be opened again with a codec of another name (see
 * {@link Codec#name()}). A {@code JsonCodec} is named {@code json:} followed by the payload type as Jackson resolves
 * it: the binary class name, with type arguments for a generic type, for example {@code
 * json:com.example.Order}, {@code json:com.example.Billing$Invoice} or {@code
 * json:java.util.List<com.example.Order>}. So a queue of orders is refused a codec of invoices, while every
 * process and every restart that reads orders, whatever mapper it passes, gives the same name. A name longer than
 * {@value Codec#MAX_NAME_LENGTH} characters keeps its first characters and ends with {@code ~} and 16 hexadecimal
 * digits of the SHA-256 of the whole type, so it stays the same everywhere and distinct from other types'.
 *
 * <p>The name says nothing of the mapper's settings. When a queue's payloads keep their JSON but their class is
 * renamed or moved, or when the JSON changes for the same class (another naming strategy, another date format),
 * give the codec a name of its own with {@link #named(String)}. Within one process, an engine hands back a queue
 * it holds open as it is, with the codec it was opened with: a second codec of the same name, on another mapper
 * say, is not used there.
 *
 * <h2>Failures</h2>
 *
 * {@link #encode} and {@link #decode} throw an {@link IllegalArgumentException} whose message names the type and
 * says what was wrong (Jackson's reason, shortened, where in the document, and how long it was), never the whole
 * document. It has no cause: Jackson's own exceptions may quote a whole value of the document, and a failed job
 * keeps its error's stack trace, causes included, where anyone who can read the queue can read it. A queue fails a
 * job whose payload cannot be decoded for good, with that message in its failure's reason.
 *
 * <p>Immutable and thread-safe. The codec keeps the mapper's settings as they are when it is made: changing the
 * mapper afterwards does not change it.
 *
 * @param <T> the payload or result type
 */
public final class JsonCodec<T> implements Codec<T> {
    private final String name;
    private final String type;
    private final ObjectReader reader;
    private final ObjectWriter writer;

    private JsonCodec(String name, String type, ObjectReader reader, ObjectWriter writer) {
        this.name = name;
        this.type = type;
        this.reader = reader;
        this.writer = writer;
    }

    private static <T> JsonCodec<T> create(ObjectMapper mapper, JavaType javaType) {
        String type = javaType.toCanonical();
        ObjectReader reader = mapper.readerFor(javaType).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        return new JsonCodec<>(JsonNames.of(type), type, reader, mapper.writerFor(javaType));
    }

    /**
     * A codec for {@code type} on the default mapper (see the class comment).
     *
     * @param type the payload class, for example a record
     * @param <T> the payload type
     * @return the codec, named {@code json:} and the class's binary name
     * @throws IllegalArgumentException if {@code type} is null
     */
    public static <T> JsonCodec<T> of(Class<T> type) {
        return of(DefaultMapper.INSTANCE, type);
    }

    /**
     * A codec for the generic type {@code type} on the default mapper (see the class comment), for example {@code
     * JsonCodec.of(new TypeReference<List<Order>>() {})}.
     *
     * @param type the payload type
     * @param <T> the payload type
     * @return the codec, named {@code json:} and the type, for example {@code json:java.util.List<com.example.Order>}
     * @throws IllegalArgumentException if {@code type} is null
     */
    public static <T> JsonCodec<T> of(TypeReference<T> type) {
        return of(DefaultMapper.INSTANCE, type);
    }

    /**
     * A codec for {@code type} on {@code mapper}.
     *
     * @param mapper the mapper, with the settings and modules it has now
     * @param type the payload class
     * @param <T> the payload type
     * @return the codec, named {@code json:} and the class's binary name, whatever the mapper
     * @throws IllegalArgumentException if an argument is null
     */
    public static <T> JsonCodec<T> of(ObjectMapper mapper, Class<T> type) {
        checkMapper(mapper, type);
        return create(mapper, mapper.constructType(type));
    }

    /**
     * A codec for the generic type {@code type} on {@code mapper}.
     *
     * @param mapper the mapper, with the settings and modules it has now
     * @param type the payload type, for example {@code new TypeReference<List<Order>>() {}}
     * @param <T> the payload type
     * @return the codec, named {@code json:} and the type, whatever the mapper
     * @throws IllegalArgumentException if an argument is null
     */
    public static <T> JsonCodec<T> of(ObjectMapper mapper, TypeReference<T> type) {
        checkMapper(mapper, type);
        return create(mapper, mapper.constructType(type));
    }

    private static void checkMapper(ObjectMapper mapper, Object type) {
        if (mapper == null) {
            throw new IllegalArgumentException("JsonCodec.of: the mapper must not be null");
        }
        if (type == null) {
            throw new IllegalArgumentException("JsonCodec.of: the payload type must not be null");
        }
    }

    /**
     * This codec under another name, for payloads whose class was renamed or moved while their JSON stayed the
     * same, or to tell a new JSON form of the same class from the old one ({@code "order-v2"}). A queue opened
     * with one name refuses a codec of another.
     *
     * @param name 1 to {@value Codec#MAX_NAME_LENGTH} characters, not blank
     * @return a codec that reads and writes as this one, named {@code name}
     * @throws IllegalArgumentException if {@code name} is null, blank or longer
     */
    public JsonCodec<T> named(String name) {
        if (name == null || name.isBlank() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("JsonCodec.named: the name must be 1 to " + MAX_NAME_LENGTH
                    + " characters, not blank, was "
                    + (name == null ? "null" : "'" + name + "' (" + name.length() + " characters)"));
        }
        return new JsonCodec<>(name, type, reader, writer);
    }

    /**
     * The JSON document of {@code payload}, in UTF-8.
     *
     * @param payload the payload or result; not null
     * @return the document's bytes
     * @throws IllegalArgumentException if {@code payload} is null or Jackson cannot write it (the message names the
     *     type and the reason)
     */
    @Override
    public byte[] encode(T payload) {
        if (payload == null) {
            throw new IllegalArgumentException("cannot encode null as JSON for " + type + ": give a payload");
        }
        try {
            return writer.writeValueAsBytes(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode a "
                    + payload.getClass().getName() + " as JSON for " + type + ": " + JsonProblems.describe(e));
        }
    }

    /**
     * The payload of a JSON document: one document of the codec's type, nothing after it, not {@code null}.
     *
     * @param bytes the document in UTF-8 (or another encoding JSON allows)
     * @return the payload, not null
     * @throws IllegalArgumentException if {@code bytes} is null, is not such a document, or does not fit the type;
     *     the message names the type, what was wrong and where, and the document's length, not its content
     */
    @Override
    public T decode(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("cannot decode null as " + type);
        }
        T payload;
        try {
            payload = reader.readValue(bytes);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "cannot decode " + bytes.length + " bytes as " + type + ": " + JsonProblems.describe(e));
        }
        if (payload == null) {
            throw new IllegalArgumentException(
                    "cannot decode " + bytes.length + " bytes as " + type + ": the document is null");
        }
        return payload;
    }

    /**
     * This codec's identity: {@code json:} and the payload type, or the name given to {@link #named(String)}.
     *
     * @return the name, 1 to {@value Codec#MAX_NAME_LENGTH} characters
     */
    @Override
    public String name() {
        return name;
    }

    /**
     * The codec for people.
     *
     * @return for example {@code JsonCodec(json:com.example.Order)}
     */
    @Override
    public String toString() {
        return "JsonCodec(" + name + ")";
    }
}
