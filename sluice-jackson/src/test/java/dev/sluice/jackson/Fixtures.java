package dev.sluice.jackson;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.List;

/** The payloads and results of the tests: records as a first program has them. */
final class Fixtures {
    private Fixtures() {}

    /** A customer; {@code phone} may be null. */
    record Customer(String name, String phone) {}

    /** One line of an order. */
    record Line(String sku, int quantity) {}

    /** An order, with nested records, a list, {@code java.time} values and a nullable note. */
    record Order(String id, Customer customer, List<Line> lines, Instant placedAt, Duration shipWithin, String note) {}

    /** What a worker leaves as a shipped order's result. */
    record Receipt(String orderId, Instant shippedAt, long cents) {}

    /** Date-times with offsets and zones other than UTC. */
    record Meeting(OffsetDateTime startsAt, ZonedDateTime endsAt) {}

    /** A shape; it carries no type information, so Jackson can write a {@link Circle} as one but not read it back. */
    interface Shape {}

    /** A circle. */
    record Circle(double radius) implements Shape {}

    /** A payload Jackson writes but cannot read unless its shape is null: a first program's easy mistake. */
    record Drawing(String id, Shape shape) {}

    static final Order ORDER = new Order(
            "o-1",
            new Customer("Ada", null),
            List.of(new Line("sku-1", 2), new Line("sku-2", 1)),
            Instant.parse("2026-01-01T10:15:30.123456789Z"),
            Duration.ofMillis(1500),
            null);

    static final Order OTHER_ORDER = new Order(
            "o-2",
            new Customer("Grace", "+44 20 7946 0000"),
            List.of(),
            Instant.parse("2026-01-02T00:00:00Z"),
            Duration.ofDays(2),
            "leave at the door");
}
