package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
