package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Retention;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The values an add sends per job, in the order queue-add.lua's insertAt reads them. */
class AddFieldsTest {
    private static final JobOptions DEFAULTS = QueueOptions.defaults().jobDefaults();

    private final JobOptionsText text = new JobOptionsText("q");
    private final AddFields fields = new AddFields(text);

    @Test
    void everyValueInTheScriptsOrder() {
        JobOptions options = JobOptions.builder()
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

        List<String> written = write(new QueueChecks.Prepared("id-1", "mail", bytes("p"), options), "rep", 42);

        assertThat(written)
                .containsExactly(
                        "id-1",
                        "mail",
                        "acme",
                        text.encode(options),
                        "p",
                        "1500000",
                        "4",
                        "7",
                        Integer.toString(
                                Retention.keepFor(Duration.ofSeconds(2)).maxCount()),
                        "2000000",
                        "9",
                        "-1",
                        "3",
                        "5000000",
                        "rep",
                        "42");
    }

    @Test
    void jobsWithOtherOptionsGetTheirOwnValuesAndJobsAlikeTheirOwnIdsNamesAndPayloads() {
        JobOptions urgent = JobOptions.builder().priority(9).build().orElse(DEFAULTS);

        List<String> first = write(new QueueChecks.Prepared(null, "a", bytes("1"), DEFAULTS), "", 0);
        List<String> second = write(new QueueChecks.Prepared(null, "b", bytes("2"), urgent), "", 0);
        List<String> third = write(new QueueChecks.Prepared("x", "c", bytes("3"), DEFAULTS), "", 0);

        assertThat(second.get(7)).as("the priority of the second job").isEqualTo("9");
        assertThat(second.get(3)).isEqualTo(text.encode(urgent));
        assertThat(third.subList(2, 4)).isEqualTo(first.subList(2, 4));
        assertThat(third.subList(5, 16)).isEqualTo(first.subList(5, 16));
        assertThat(List.of(first.get(0), first.get(1), first.get(4))).containsExactly("", "a", "1");
        assertThat(List.of(third.get(0), third.get(1), third.get(4))).containsExactly("x", "c", "3");
    }

    private List<String> write(QueueChecks.Prepared job, String repeatId, long scheduled) {
        byte[][] args = new byte[1 + AddFields.COUNT + 1][];
        int end = fields.write(args, 1, job, repeatId, scheduled);
        assertThat(end).isEqualTo(1 + AddFields.COUNT);
        return Arrays.stream(args, 1, end)
                .map(b -> new String(b, StandardCharsets.UTF_8))
                .toList();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
