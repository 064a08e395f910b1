package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Job;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link JobRecord} reads the record as queue-state.lua lays it out. */
class JobRecordTest {
    @Test
    void theFieldsAreTheLibrarysRecordFieldsAtTheirPositions() throws IOException {
        String state = Files.readString(Path.of("src/main/resources/dev/sluice/redis/internal/queue-state.lua"));
        Matcher declaration =
                Pattern.compile("(?m)^local (R_[A-Z_, ]+) = ([0-9, ]+)$").matcher(state);
        Map<String, Integer> declared = new LinkedHashMap<>();
        while (declaration.find()) {
            String[] names = declaration.group(1).split(",\\s*");
            String[] values = declaration.group(2).split(",\\s*");
            assertThat(names).as(declaration.group()).hasSameSizeAs(values);
            for (int i = 0; i < names.length; i++) {
                declared.put(names[i], Integer.valueOf(values[i]));
            }
        }
        Map<String, Integer> named = new LinkedHashMap<>();
        for (JobRecord.Field field : JobRecord.Field.values()) {
            named.put(field.name(), field.position());
        }
        assertThat(named).as("the R_* of queue-state.lua").containsExactlyEntriesOf(declared);
    }

    @Test
    void aKeptJobsRecordGivesItsPayloadAndAnotherRecordNone() {
        byte[] kept = record(JobRecord.Field.R_PAYLOAD.position(), "p");
        byte[] waiting = record(JobRecord.Field.R_PAYLOAD.position() - 1, null);

        assertThat(JobRecord.keptPayload(kept)).isEqualTo("p".getBytes(StandardCharsets.UTF_8));
        assertThat(JobRecord.keptPayload(waiting)).isNull();
        assertThatThrownBy(() -> JobRecord.keptPayload(new byte[] {(byte) 0xa1, 'x'}))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aWaitingRecordMadeActiveHasTheAttemptsStartAppendedAndTheOriginalUnchanged() {
        List<Object> waiting = waitingRecord(List.of(Arrays.asList(1L, 10L, 20L, "FAILED", "boom")));
        List<Object> before = new ArrayList<>(waiting);

        List<Object> active = JobRecord.activated(waiting, 7, 30);

        assertThat(waiting).isEqualTo(before);
        assertThat(JobRecord.Field.R_STATE.of(active)).isEqualTo("a");
        assertThat(JobRecord.Field.R_TOKEN.of(active)).isEqualTo(7L);
        assertThat(JobRecord.Field.R_STARTED.of(active)).isEqualTo(30L);
        assertThat(JobRecord.Field.R_PROGRESS.of(active)).isEqualTo(0L);
        assertThat(JobRecord.Field.R_ATTEMPTS.of(active)).isEqualTo(2L);
        assertThat(JobRecord.Field.R_READY.of(active)).isNull();
        assertThat(JobRecord.Field.R_KEY.of(active)).isNull();
        assertThat(JobRecord.Field.R_NAME.of(active)).isEqualTo("n");
        assertThat(Replies.list(JobRecord.Field.R_HISTORY.of(active)))
                .containsExactly(
                        Arrays.asList(1L, 10L, 20L, "FAILED", "boom"), Arrays.asList(2L, 30L, null, null, null));
    }

    @Test
    void aFullHistoryKeepsItsFirstAttemptAndDropsTheSecondForTheNewOne() {
        List<Object> history = new ArrayList<>();
        for (long n = 1; n <= Job.MAX_ATTEMPTS_RECORDED; n++) {
            history.add(Arrays.asList(n, n, n, "FAILED", null));
        }
        List<Object> waiting = waitingRecord(history);
        waiting.set(JobRecord.Field.R_ATTEMPTS.ordinal(), 150L);

        List<Object> attempts = Replies.list(JobRecord.Field.R_HISTORY.of(JobRecord.activated(waiting, 1, 500)));

        assertThat(attempts).hasSize(Job.MAX_ATTEMPTS_RECORDED);
        assertThat(attempts.get(0)).isEqualTo(history.get(0));
        assertThat(attempts.get(1)).isEqualTo(history.get(2));
        assertThat(attempts.get(attempts.size() - 1)).isEqualTo(Arrays.asList(151L, 500L, null, null, null));
    }

    /** A record as an add leaves it (up to R_SCHEDULED), waiting, with {@code history}. */
    private static List<Object> waitingRecord(List<Object> history) {
        List<Object> record = new ArrayList<>();
        for (int i = 0; i < JobRecord.Field.R_SCHEDULED.position(); i++) {
            record.add(null);
        }
        record.set(JobRecord.Field.R_NAME.ordinal(), "n");
        record.set(JobRecord.Field.R_STATE.ordinal(), "w");
        record.set(JobRecord.Field.R_READY.ordinal(), 5L);
        record.set(JobRecord.Field.R_KEY.ordinal(), "0010000000000001");
        record.set(JobRecord.Field.R_ATTEMPTS.ordinal(), (long) history.size());
        record.set(JobRecord.Field.R_HISTORY.ordinal(), history);
        return record;
    }

    /** A packed array of {@code size} nils (as cmsgpack packs false), the last one {@code last} if given. */
    private static byte[] record(int size, String last) {
        byte[] out = new byte[3 + size + (last == null ? 0 : last.length())];
        out[0] = (byte) 0xdc;
        out[1] = (byte) (size >> 8);
        out[2] = (byte) size;
        for (int i = 0; i < size; i++) {
            out[3 + i] = (byte) 0xc2;
        }
        if (last != null) {
            out[3 + size - 1] = (byte) (0xa0 + last.length());
            byte[] text = last.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(text, 0, out, 3 + size, text.length);
        }
        return out;
    }
}
