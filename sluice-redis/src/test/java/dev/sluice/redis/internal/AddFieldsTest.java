package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Retention;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The values an add sends per job, in the order queue-add.lua's insertAt reads them, and the record they pack: its
 * parts joined around the values the script decides read as the record the script's header describes.
 */
class AddFieldsTest {
    private static final JobOptions DEFAULTS = QueueOptions.defaults().jobDefaults();

    private final JobOptionsText text = new JobOptionsText("q");
    private final AddFields fields = new AddFields(text);

    private final JobOptions everything = JobOptions.builder()
            .jobId("id-1")
            .group("acme")
            .delay(Duration.ofMillis(1500))
            .attempts(4)
            .priority(7)
            .keepCompleted(Retention.keepFor(Duration.ofSeconds(2)))
            .keepFailed(Retention.keepLast(9))
            .maxRateLimits(3)
            .deduplicateFor(Duration.ofSeconds(5))
            .build()
            .orElse(DEFAULTS);

    @Test
    void theValuesTheScriptDecidesWithInItsOrder() {
        byte[][] written = write(new QueueChecks.Prepared("id-1", "mail", bytes("p"), everything), "rep", 42);

        assertThat(Arrays.stream(written, 0, 3).map(AddFieldsTest::text))
                .containsExactly(
                        "id-1",
                        "p",
                        "1500000|7|" + Retention.keepFor(Duration.ofSeconds(2)).maxCount() + "|5000000|42|acme");
    }

    @Test
    void theRecordsPartsJoinedAroundTheScriptsValuesReadAsTheWholeRecord() {
        byte[][] written = write(new QueueChecks.Prepared("id-1", "mail", bytes("p"), everything), "rep", 42);

        List<Object> record = joined(written, "d", 1_000L, 5L, "0000000000000005", false, 2_500L);

        assertThat(record).hasSize(AddFields.RECORD_VALUES);
        List<Object> expected = new ArrayList<>(Arrays.asList(
                "mail", "acme", "d", text.encode(everything), 1_000L, 5L, "0000000000000005", null, 2_500L));
        // started, finished, finish, made, rate limits, progress; result and failure; attempts
        expected.addAll(Arrays.asList(0L, 0L, 0L, 0L, 0L, 0L, null, null, null, null, 0L));
        expected.add(List.of()); // history
        expected.addAll(Arrays.asList(0L, 0L, 0L, 4L, 7L)); // token, stalls, most stalls, attempts, priority
        expected.addAll(Arrays.asList(
                (long) Retention.keepFor(Duration.ofSeconds(2)).maxCount(), 2_000_000L, 9L, -1L, 3L, 5_000_000L));
        expected.addAll(Arrays.asList("rep", 42L));
        assertThat(readable(record)).isEqualTo(expected);
    }

    @Test
    void aJobOfNoGroupNorRepeatableJobHasNoneInItsRecord() {
        byte[][] written = write(new QueueChecks.Prepared(null, "a", bytes("1"), DEFAULTS), "", 0);

        List<Object> record = joined(written, "w", 1L, 1L, "k", 1L, false);

        assertThat(text(written[0])).isEmpty();
        assertThat(text(written[2]))
                .as("no delay, priority 0, no de-duplication window, no run's time, no group")
                .startsWith("0|0|")
                .endsWith("|-1||");
        assertThat(record.get(1)).as("group").isNull();
        assertThat(record.subList(32, 34)).as("repeatable job and run").containsOnlyNulls();
        assertThat(record.get(31)).as("no de-duplication window").isEqualTo(-1L);
    }

    @Test
    void jobsWithOtherOptionsGetTheirOwnValuesAndJobsAlikeTheirOwnIdsNamesAndPayloads() {
        JobOptions urgent = JobOptions.builder().priority(9).build().orElse(DEFAULTS);

        byte[][] first = write(new QueueChecks.Prepared(null, "a", bytes("1"), DEFAULTS), "", 0);
        byte[][] second = write(new QueueChecks.Prepared(null, "b", bytes("2"), urgent), "", 0);
        byte[][] third = write(new QueueChecks.Prepared("x", "c", bytes("3"), DEFAULTS), "", 0);

        assertThat(text(second[2])).as("the priority of the second job").startsWith("0|9|");
        assertThat(joined(second, "w", 1L, 1L, "k", 1L, false).get(25)).isEqualTo(9L);
        assertThat(joined(second, "w", 1L, 1L, "k", 1L, false).get(3)).isEqualTo(bytes(text.encode(urgent)));
        assertThat(third[2]).isEqualTo(first[2]);
        assertThat(third[4]).isEqualTo(first[4]);
        assertThat(third[5]).isEqualTo(first[5]);
        assertThat(List.of(text(first[0]), text(first[1]))).containsExactly("", "1");
        assertThat(List.of(text(third[0]), text(third[1]))).containsExactly("x", "3");
        assertThat(joined(third, "w", 1L, 1L, "k", 1L, false).get(0)).isEqualTo(bytes("c"));
    }

    private byte[][] write(QueueChecks.Prepared job, String repeatId, long scheduled) {
        byte[][] args = new byte[1 + AddFields.COUNT + 1][];
        int end = fields.write(args, 1, job, repeatId, scheduled);
        assertThat(end).isEqualTo(1 + AddFields.COUNT);
        return Arrays.copyOfRange(args, 1, end);
    }

    /** The record as the script joins it: state, then creation, order number and key, ready and due times. */
    private static List<Object> joined(byte[][] written, String state, Object... decided) {
        MessagePackWriter middle = new MessagePackWriter();
        for (Object v : decided) {
            if (v instanceof Long n) {
                middle.integer(n);
            } else if (v instanceof String s) {
                middle.string(bytes(s));
            } else {
                middle.falseValue();
            }
        }
        byte[] stateBytes = new MessagePackWriter().string(bytes(state)).toBytes();
        byte[] record = concat(written[3], stateBytes, written[4], middle.toBytes(), written[5]);
        @SuppressWarnings("unchecked")
        List<Object> read = (List<Object>) MessagePack.decode(record);
        return read;
    }

    private static List<Object> readable(List<Object> record) {
        List<Object> out = new ArrayList<>();
        for (Object v : record) {
            out.add(v instanceof byte[] b ? text(b) : v);
        }
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
