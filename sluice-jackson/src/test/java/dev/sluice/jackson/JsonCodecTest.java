package dev.sluice.jackson;

import static dev.sluice.jackson.Fixtures.ORDER;
import static dev.sluice.jackson.Fixtures.OTHER_ORDER;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.sluice.jackson.Fixtures.Line;
import dev.sluice.jackson.Fixtures.Meeting;
import dev.sluice.jackson.Fixtures.Order;
import dev.sluice.queue.Codec;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JsonCodecTest {
    private static final JsonCodec<Order> ORDERS = JsonCodec.of(Order.class);
    private static final String ORDER_TYPE = "dev.sluice.jackson.Fixtures$Order";

    private static ObjectMapper snakeCaseMapper() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .build();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(UTF_8);
    }

    // ---- round trips ----

    @Test
    void roundTripsARecordWithNestedRecordsInstantsDurationsAndNullComponents() {
        assertThat(ORDERS.decode(ORDERS.encode(ORDER))).isEqualTo(ORDER);
        assertThat(ORDERS.decode(ORDERS.encode(OTHER_ORDER))).isEqualTo(OTHER_ORDER);
    }

    @Test
    void writesJavaTimeValuesAsIsoTextAndNullComponentsAsNull() {
        String json = new String(ORDERS.encode(ORDER), UTF_8);

        assertThat(json)
                .contains("\"placedAt\":\"2026-01-01T10:15:30.123456789Z\"")
                .contains("\"shipWithin\":\"PT1.5S\"")
                .contains("\"customer\":{\"name\":\"Ada\",\"phone\":null}")
                .contains("\"note\":null");
    }

    @Test
    void keepsTheOffsetsAndZonesOfDateTimesAsWritten() {
        JsonCodec<Meeting> codec = JsonCodec.of(Meeting.class);
        Meeting meeting = new Meeting(
                OffsetDateTime.parse("2026-03-01T09:00:00+02:00"),
                ZonedDateTime.parse("2026-03-01T10:30:00+01:00[Europe/Paris]"));

        assertThat(codec.decode(codec.encode(meeting))).isEqualTo(meeting);
    }

    @Test
    void readsAGenericListBackAsRecords() {
        JsonCodec<List<Order>> codec = JsonCodec.of(new TypeReference<List<Order>>() {});

        List<Order> back = codec.decode(codec.encode(List.of(ORDER, OTHER_ORDER)));

        assertThat(back).containsExactly(ORDER, OTHER_ORDER);
    }

    @Test
    void readsAGenericTypeOnAMapperOfYourOwn() {
        JsonCodec<Map<String, List<Order>>> codec =
                JsonCodec.of(snakeCaseMapper(), new TypeReference<Map<String, List<Order>>>() {});
        Map<String, List<Order>> orders = Map.of("ada", List.of(ORDER), "grace", List.of(OTHER_ORDER));

        byte[] json = codec.encode(orders);

        assertThat(new String(json, UTF_8)).contains("\"placed_at\":");
        assertThat(codec.decode(json)).isEqualTo(orders);
    }

    @Test
    void ignoresPropertiesItDoesNotKnowSoAProducerCanAddAFieldFirst() {
        JsonCodec<Line> codec = JsonCodec.of(Line.class);

        assertThat(codec.decode(utf8("{\"sku\":\"a\",\"quantity\":1,\"colour\":\"red\"}")))
                .isEqualTo(new Line("a", 1));
    }

    @Test
    void usesTheSettingsOfAMapperOfYourOwnAsTheyWereWhenTheCodecWasMade() {
        ObjectMapper mapper = snakeCaseMapper();
        JsonCodec<Order> codec = JsonCodec.of(mapper, Order.class);
        mapper.setPropertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE);

        String json = new String(codec.encode(ORDER), UTF_8);

        assertThat(json).contains("\"placed_at\":").doesNotContain("\"PlacedAt\"");
        assertThat(codec.decode(utf8(json))).isEqualTo(ORDER);
    }

    // ---- names ----

    @Test
    void isNamedJsonAndTheBinaryNameOfItsType() {
        assertThat(ORDERS.name()).isEqualTo("json:" + ORDER_TYPE);
        assertThat(JsonCodec.of(new TypeReference<List<Order>>() {}).name())
                .isEqualTo("json:java.util.List<" + ORDER_TYPE + ">");
        assertThat(JsonCodec.of(new TypeReference<Map<String, List<Line>>>() {}).name())
                .isEqualTo("json:java.util.Map<java.lang.String,java.util.List<dev.sluice.jackson.Fixtures$Line>>");
        assertThat(ORDERS).hasToString("JsonCodec(json:" + ORDER_TYPE + ")");
    }

    @Test
    void givesOneTypeOneNameWhateverTheFactoryOrMapper() {
        assertThat(Stream.of(
                                JsonCodec.of(Order.class),
                                JsonCodec.of(snakeCaseMapper(), Order.class),
                                JsonCodec.of(new TypeReference<Order>() {}),
                                JsonCodec.of(new ObjectMapper(), new TypeReference<Order>() {}))
                        .map(Codec::name))
                .containsOnly("json:" + ORDER_TYPE);
    }

    @Test
    void givesDifferentTypesDifferentNames() {
        Set<String> names = Set.of(
                JsonCodec.of(Order.class).name(),
                JsonCodec.of(Line.class).name(),
                JsonCodec.of(new TypeReference<List<Order>>() {}).name(),
                JsonCodec.of(new TypeReference<List<Line>>() {}).name(),
                JsonCodec.of(new TypeReference<Set<Order>>() {}).name());

        assertThat(names).hasSize(5);
    }

    @Test
    void shortensANameOverTheLimitWithAHashOfTheWholeTypeTheSameInEveryJvm() {
        String orders = JsonCodec.of(
                        new TypeReference<
                                Map<String, Map<String, Map<String, Map<String, Map<String, List<Order>>>>>>>() {})
                .name();
        String lines = JsonCodec.of(
                        new TypeReference<
                                Map<String, Map<String, Map<String, Map<String, Map<String, List<Line>>>>>>>() {})
                .name();

        assertThat(orders)
                .hasSize(Codec.MAX_NAME_LENGTH)
                .isEqualTo("json:java.util.Map<java.lang.String,java.util.Map<java.lang.String,java.util.Map<"
                        + "java.lang.String,java.util.Map<java.lang.String,java.util.Map<java.lang.String,"
                        + "java.util.List<dev.slui"
                        + "~03212cb82bae6552");
        assertThat(lines).hasSize(Codec.MAX_NAME_LENGTH).isNotEqualTo(orders);
    }

    @Test
    void namedGivesTheCodecAnotherNameAndTheSameJson() {
        JsonCodec<Order> v2 = ORDERS.named("order-v2");

        assertThat(v2.name()).isEqualTo("order-v2");
        assertThat(v2).hasToString("JsonCodec(order-v2)");
        assertThat(v2.encode(ORDER)).isEqualTo(ORDERS.encode(ORDER));
        assertThat(v2.decode(ORDERS.encode(ORDER))).isEqualTo(ORDER);
        assertThat(ORDERS.name()).isEqualTo("json:" + ORDER_TYPE);
    }

    @Test
    void namedRefusesANullBlankOrTooLongName() {
        assertThatThrownBy(() -> ORDERS.named(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JsonCodec.named: the name must be 1 to 200 characters, not blank, was null");
        assertThatThrownBy(() -> ORDERS.named(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("was ' ' (1 characters)");
        assertThat(ORDERS.named("x".repeat(200)).name()).hasSize(200);
        assertThatThrownBy(() -> ORDERS.named("x".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("(201 characters)");
    }

    @Test
    void factoriesRefuseANullMapperOrType() {
        assertThatThrownBy(() -> JsonCodec.of((Class<Order>) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JsonCodec.of: the payload type must not be null");
        assertThatThrownBy(() -> JsonCodec.of((TypeReference<Order>) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JsonCodec.of: the payload type must not be null");
        assertThatThrownBy(() -> JsonCodec.of(null, Order.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JsonCodec.of: the mapper must not be null");
        assertThatThrownBy(() -> JsonCodec.of(null, new TypeReference<Order>() {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JsonCodec.of: the mapper must not be null");
    }

    // ---- failures ----

    @Test
    void aDocumentThatIsNotJsonFailsNamingTheTypeTheReasonAndWhere() {
        assertThatThrownBy(() -> ORDERS.decode(utf8("{\"id\": o-1}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot decode 11 bytes as " + ORDER_TYPE + ": Unrecognized token 'o'")
                .hasMessageEndingWith("(line 1, column 8)")
                .hasNoCause();
    }

    @Test
    void aValueOfTheWrongTypeFailsNamingThePathToIt() {
        byte[] json = utf8(
                "{\"id\":\"o-1\",\"lines\":[{\"sku\":\"a\",\"quantity\":1},{\"sku\":\"b\",\"quantity\":\"many\"}]}");

        assertThatThrownBy(() -> ORDERS.decode(json))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "as " + ORDER_TYPE + ": Cannot deserialize value of type `int` from String \"many\"")
                .hasMessageContaining(" at $.lines[1].quantity (line 1, column ");
    }

    @Test
    void aFailureQuotesNoMoreThanAShortPieceOfALargeDocumentAndKeepsNoCauseThatWould() {
        String secret = "s".repeat(5_000);
        byte[] badTime = utf8("{\"id\":\"" + secret + "\",\"placedAt\":\"yesterday\"}");
        byte[] badToken = utf8("{\"id\":" + secret + "}");
        byte[] badCustomer = utf8("{\"id\":\"o-1\",\"customer\":\"" + secret + "\"}");

        for (byte[] json : List.of(badTime, badToken, badCustomer)) {
            assertThatThrownBy(() -> ORDERS.decode(json))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(ORDER_TYPE)
                    .hasNoCause()
                    .message()
                    .hasSizeLessThan(JsonProblems.MAX_REASON + 250)
                    .doesNotContain(secret.substring(0, JsonProblems.MAX_REASON + 1));
        }
    }

    @Test
    void contentAfterTheDocumentFails() {
        byte[] twoDocuments = utf8(new String(ORDERS.encode(ORDER), UTF_8) + " {}");

        assertThatThrownBy(() -> ORDERS.decode(twoDocuments))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Trailing token");
    }

    @Test
    void nullIsRefusedBothWays() {
        assertThatThrownBy(() -> ORDERS.encode(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot encode null as JSON for " + ORDER_TYPE + ": give a payload");
        assertThatThrownBy(() -> ORDERS.decode(utf8("null")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot decode 4 bytes as " + ORDER_TYPE + ": the document is null");
        assertThatThrownBy(() -> ORDERS.decode(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot decode null as " + ORDER_TYPE);
    }

    @Test
    void aPayloadJacksonCannotWriteFailsNamingItsClassAndTheType() {
        JsonCodec<Object> codec = JsonCodec.of(Object.class);

        assertThatThrownBy(() -> codec.encode(new Object()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "cannot encode a java.lang.Object as JSON for java.lang.Object: No serializer found for class java.lang.Object")
                .hasNoCause();
    }
}
