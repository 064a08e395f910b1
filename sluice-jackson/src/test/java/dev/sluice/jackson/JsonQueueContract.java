package dev.sluice.jackson;

import static dev.sluice.jackson.Fixtures.ORDER;
import static dev.sluice.jackson.Fixtures.OTHER_ORDER;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.sluice.Sluice;
import dev.sluice.jackson.Fixtures.Circle;
import dev.sluice.jackson.Fixtures.Drawing;
import dev.sluice.jackson.Fixtures.Line;
import dev.sluice.jackson.Fixtures.Order;
import dev.sluice.jackson.Fixtures.Receipt;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A queue of records through {@link JsonCodec}, payloads and typed results, held to the same behaviour on every
 * engine: one subclass per engine.
 */
abstract class JsonQueueContract {
    private static final JsonCodec<Order> ORDERS = JsonCodec.of(Order.class);
    private static final JsonCodec<Receipt> RECEIPTS = JsonCodec.of(Receipt.class);
    private static final Instant SHIPPED = Instant.parse("2026-01-03T08:00:00Z");

    private Sluice engine;

    /** A new, empty engine; the test closes it. */
    protected abstract Sluice newEngine();

    @BeforeEach
    void open() {
        engine = newEngine();
    }

    @AfterEach
    void close() {
        engine.close();
    }

    private static JobOptions withId(String id) {
        return JobOptions.builder().jobId(id).attempts(3).build();
    }

    private static <T> Job<T> job(JobQueue<T> queue, String id) {
        return queue.job(id).orElseThrow();
    }

    @Test
    void aWorkerReadsRecordPayloadsAndLeavesTypedResultsToReadBack() {
        JobQueue<Order> queue = engine.queue("orders", ORDERS);
        List<Order> ran = new CopyOnWriteArrayList<>();
        queue.add("ship", ORDER, withId("1"));
        queue.add("ship", OTHER_ORDER, withId("2"));

        int done = queue.worker(
                        ctx -> {
                            Order order = ctx.payload();
                            ran.add(order);
                            return Result.done(
                                    new Receipt(
                                            order.id(),
                                            SHIPPED,
                                            100L * order.lines().size()),
                                    RECEIPTS);
                        },
                        WorkerOptions.manual())
                .runDue();

        assertThat(done).isEqualTo(2);
        assertThat(ran).containsExactly(ORDER, OTHER_ORDER);
        Job<Order> first = job(queue, "1");
        assertThat(first.state()).isEqualTo(JobState.COMPLETED);
        assertThat(first.payload()).isEqualTo(ORDER);
        assertThat(first.result(RECEIPTS)).isEqualTo(new Receipt("o-1", SHIPPED, 200));
        assertThat(job(queue, "2").result(RECEIPTS)).isEqualTo(new Receipt("o-2", SHIPPED, 0));
        assertThat(new String(first.encodedResult(), UTF_8))
                .isEqualTo("{\"orderId\":\"o-1\",\"shippedAt\":\"2026-01-03T08:00:00Z\",\"cents\":200}");
    }

    @Test
    void aQueueOfGenericPayloadsLeavesAGenericResult() {
        JsonCodec<List<Order>> batches = JsonCodec.of(new TypeReference<List<Order>>() {});
        JsonCodec<List<Line>> lines = JsonCodec.of(new TypeReference<List<Line>>() {});
        JobQueue<List<Order>> queue = engine.queue("batches", batches);
        String id = queue.add("pick", List.of(ORDER, OTHER_ORDER)).job().id();

        queue.worker(
                        ctx -> Result.done(
                                ctx.payload().stream()
                                        .flatMap(order -> order.lines().stream())
                                        .toList(),
                                lines),
                        WorkerOptions.manual())
                .runDue();

        Job<List<Order>> job = queue.job(id).orElseThrow();
        assertThat(job.payload()).containsExactly(ORDER, OTHER_ORDER);
        assertThat(job.result(lines)).containsExactlyElementsOf(ORDER.lines());
    }

    @Test
    void aQueueOpensAgainWithACodecForTheSameTypeAndRefusesOneForAnother() {
        engine.queue("orders", ORDERS).add("ship", ORDER, withId("1"));

        JobQueue<Order> again = engine.queue(
                "orders",
                JsonCodec.of(
                        JsonMapper.builder().addModule(new JavaTimeModule()).build(), Order.class));
        assertThat(job(again, "1").payload()).isEqualTo(ORDER);
        assertThatThrownBy(() -> engine.queue("orders", JsonCodec.of(Line.class)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'json:dev.sluice.jackson.Fixtures$Order'")
                .hasMessageContaining("'json:dev.sluice.jackson.Fixtures$Line'");
    }

    @Test
    void aPayloadTheCodecCannotReadFailsItsJobForGoodNamingTheTypeAndThePathAndTheOthersRun() {
        JobQueue<Drawing> queue = engine.queue("drawings", JsonCodec.of(Drawing.class));
        queue.add("draw", new Drawing("d-1", new Circle(1.5)), withId("bad"));
        queue.add("draw", new Drawing("d-2", null), withId("good"));

        int ran = queue.worker(ctx -> Result.done(ctx.payload().id()), WorkerOptions.manual())
                .runDue();

        assertThat(ran).isEqualTo(2);
        assertThat(job(queue, "good").result()).isEqualTo("d-2");
        Job<Drawing> bad = job(queue, "bad");
        assertThat(bad.state()).isEqualTo(JobState.FAILED);
        assertThat(bad.attemptsMade()).as("not retried").isEqualTo(1);
        assertThat(bad.payload()).isNull();
        assertThat(bad.failure().exceptionClass()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(bad.failure().reason())
                .contains("'bad'")
                .contains("as dev.sluice.jackson.Fixtures$Drawing: Cannot construct instance of "
                        + "`dev.sluice.jackson.Fixtures$Shape`")
                .contains(" at $.shape ");
        assertThat(bad.failure().stackTrace())
                .as("no Jackson exception, whose message may quote the payload")
                .doesNotContain("Caused by");
        assertThat(new String(queue.payloadBytes("bad").orElseThrow(), UTF_8))
                .isEqualTo("{\"id\":\"d-1\",\"shape\":{\"radius\":1.5}}");
    }
}
