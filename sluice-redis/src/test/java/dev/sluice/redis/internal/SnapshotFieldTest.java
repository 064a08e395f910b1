package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@link SnapshotField} names the values of a snapshot in the order the queue library replies them: its list in
 * queue-events.lua, the values snapshot() builds, and the positions queue-claim.lua writes into a claim's snapshot.
 */
class SnapshotFieldTest {
    private static final Path SOURCES = Path.of("src/main/resources/dev/sluice/redis/internal");

    private static String read(String file) throws IOException {
        return Files.readString(SOURCES.resolve(file));
    }

    /** The names listed after {@code label} in the comment lines that follow it ({@code --   more names}). */
    private static List<String> listed(String lua, String label) {
        List<String> names = new ArrayList<>();
        boolean inList = false;
        for (String line : lua.split("\n")) {
            if (line.startsWith("-- " + label + ":")) {
                inList = true;
                line = line.substring(("-- " + label + ":").length());
            } else if (inList && line.startsWith("--   ")) {
                line = line.substring(2);
            } else if (inList) {
                break;
            }
            if (inList) {
                names.addAll(Arrays.asList(line.trim().split("\\s+")));
            }
        }
        return names;
    }

    private static List<String> luaNames(SnapshotField... fields) {
        return Arrays.stream(fields).map(SnapshotField::luaName).toList();
    }

    @Test
    void theFieldsAreTheLibrarysListInItsOrder() throws IOException {
        String events = read("queue-events.lua");
        List<SnapshotField> all = List.of(SnapshotField.values());

        assertThat(listed(events, "snapshot fields")).isEqualTo(luaNames(all.toArray(SnapshotField[]::new)));
    }

    @Test
    void snapshotBuildsOneValuePerListedField() throws IOException {
        String events = read("queue-events.lua");
        Matcher body = Pattern.compile(
                        "local function snapshot\\(.*?\\n  return \\{\\n(.*?)\\n  }\\nend", Pattern.DOTALL)
                .matcher(events);
        assertThat(body.find()).as("snapshot() ends with the table it returns").isTrue();

        assertThat(topLevelValues(body.group(1))).isEqualTo(SnapshotField.values().length);
    }

    @Test
    void aClaimRepliesItsValuesWhereClaimedJobReadsThemInBothWaysOfClaiming() throws IOException {
        String claim = read("queue-claim.lua");
        String entry = read("queue-entry.lua");
        String held = read("queue-held.lua");

        assertThat(ClaimedJob.ID).isZero();
        assertThat(claim).contains("local claimed = { id, job[R_READY], false, false }");
        assertThat(ClaimedJob.READY_AT).isEqualTo(1);
        assertThat(claim).contains("reply[#reply + 1] = { id, false, false, false, token, now }");
        assertThat(ClaimedJob.TOKEN).isEqualTo(4);
        assertThat(ClaimedJob.STARTED).isEqualTo(5);
        assertPosition(claim, "reply\\[first \\+ k - 1]\\[(\\d+)] = payloads\\[k]", ClaimedJob.PAYLOAD);
        assertPosition(held, "claimed\\[(\\d+)] = payloads\\[k]", ClaimedJob.PAYLOAD);
        assertPosition(entry, "claimed\\[(\\d+)] = buf\\.packed\\[claimed\\[1]]", ClaimedJob.RECORD);
        assertPosition(
                held,
                "claimed\\[(\\d+)] = job and pack\\(job\\) or buf\\.fresh\\[id] or records\\[k]",
                ClaimedJob.RECORD);
    }

    /** The Lua index that {@code pattern} captures in {@code lua} is Java's {@code position}, counted from 0. */
    private static void assertPosition(String lua, String pattern, int position) {
        Matcher matcher = Pattern.compile(pattern).matcher(lua);
        assertThat(matcher.find()).as(pattern).isTrue();
        assertThat(Integer.parseInt(matcher.group(1)) - 1).as(pattern).isEqualTo(position);
    }

    @Test
    void luaNamesAreCamelCase() {
        assertThat(SnapshotField.ATTEMPTS_MADE.luaName()).isEqualTo("attemptsMade");
        assertThat(SnapshotField.ID.luaName()).isEqualTo("id");
        assertThat(SnapshotField.FAILURE_REASON.luaName()).isEqualTo("failureReason");
    }

    /** How many values a Lua table constructor's body holds: its commas outside brackets, plus one. */
    private static int topLevelValues(String body) {
        int depth = 0;
        int values = body.isBlank() ? 0 : 1;
        for (char c : body.toCharArray()) {
            switch (c) {
                case '(', '{', '[' -> depth++;
                case ')', '}', ']' -> depth--;
                case ',' -> values += depth == 0 ? 1 : 0;
                default -> {}
            }
        }
        return values;
    }
}
