package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The queue library is every queue-*.lua file of the sources, the limit script every limit-*.lua file, each once,
 * none over what one person can read, and the library has room to grow under Lua's limit of locals.
 */
class QueueScriptTest {
    private static final Path SOURCES = Path.of("src/main/resources/dev/sluice/redis/internal");

    @Test
    void theLibraryJoinsEveryQueueFileOfTheSourcesOnce() throws IOException {
        assertThat(QueueScript.FILES).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sources("queue"));
    }

    @Test
    void theLimitScriptJoinsEveryLimitFileOfTheSourcesOnce() throws IOException {
        assertThat(limitFiles()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sources("limit"));
    }

    @Test
    void noFileOfEitherIsLongerThan300Lines() throws IOException {
        for (String file : Stream.concat(QueueScript.FILES.stream(), LimitScript.FILES.stream())
                .toList()) {
            assertThat(Files.readAllLines(SOURCES.resolve(file))).as(file).hasSizeLessThanOrEqualTo(300);
        }
    }

    /**
     * Lua allows a chunk 200 locals, and the library is one chunk: it must leave room for more (Redis compiles it
     * with {@code SCRIPT LOAD}), so that a change does not meet the limit at once.
     */
    @Test
    void theLibraryLeavesRoomForThirtyMoreLocals() {
        try (RedisServer redis = RedisServer.start()) {
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().scriptLoad(withSpareLocals(30))).isNotEmpty();
                assertThatThrownBy(() -> connection.sync().scriptLoad(withSpareLocals(200)))
                        .as("the check itself: Redis refuses a chunk of too many locals")
                        .hasMessageContaining("more than 200 local variables");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void everyCommandOfTheLibraryIsARedisFunctionOfItsOwn() throws IOException {
        Set<String> inLua = new TreeSet<>();
        for (String file : QueueScript.FILES) {
            Matcher assigned = COMMAND.matcher(Files.readString(SOURCES.resolve(file)));
            while (assigned.find()) {
                inLua.add(assigned.group(1));
            }
        }
        assertThat(QueueScript.COMMANDS).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(inLua);

        try (RedisServer redis = RedisServer.start()) {
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.sync().functionLoad(QueueScript.FUNCTION_LIBRARY);
                assertThat(connection
                                .sync()
                                .functionList()
                                .get(0)
                                .get("functions")
                                .toString())
                        .contains(QueueScript.function("finish".getBytes(StandardCharsets.UTF_8)));
                String counts = QueueScript.function("counts".getBytes(StandardCharsets.UTF_8));
                assertThat(connection
                                .sync()
                                .<List<Object>>fcall(counts, ScriptOutputType.MULTI, new String[] {"q"}, "counts", ""))
                        .hasSize(2);
                assertThatThrownBy(() -> connection
                                .sync()
                                .fcall(counts, ScriptOutputType.MULTI, new String[] {"q"}, "get", "", "id"))
                        .as("a function runs its own command only")
                        .hasMessageContaining("unknown command \"get\" for this function");
            } finally {
                client.shutdown();
            }
        }
        assertThatThrownBy(() -> QueueScript.function("nope".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no command 'nope'");
    }

    private static final Pattern COMMAND = Pattern.compile("(?m)^COMMANDS\\.(\\w+) =");

    /** The read-only commands as queue-entry.lua names them: {@code READ_ONLY = { counts = true, ... }}. */
    private static final Pattern READ_ONLY_TABLE = Pattern.compile("(?m)^READ_ONLY = \\{([^}]*)}");

    /** Lua skips housekeeping for the commands it names read-only; Java registers those no-writes and sends FCALL_RO. */
    @Test
    void theReadOnlyCommandsAreTheSameInLuaAndJava() throws IOException {
        Matcher table = READ_ONLY_TABLE.matcher(Files.readString(SOURCES.resolve("queue-entry.lua")));
        assertThat(table.find()).as("READ_ONLY in queue-entry.lua").isTrue();
        Set<String> inLua = new TreeSet<>();
        Matcher name = Pattern.compile("(\\w+) = true").matcher(table.group(1));
        while (name.find()) {
            inLua.add(name.group(1));
        }
        assertThat(inLua).isNotEmpty().isEqualTo(new TreeSet<>(QueueScript.READ_ONLY));
        assertThat(QueueScript.COMMANDS).containsAll(QueueScript.READ_ONLY);
    }

    /** The library as a script, with {@code spare} more locals declared where its last file ends. */
    private static String withSpareLocals(int spare) {
        String tail = "\nreturn entry(KEYS, ARGV)\n";
        assertThat(QueueScript.SOURCE).endsWith(tail);
        StringBuilder locals = new StringBuilder();
        for (int i = 0; i < spare; i++) {
            locals.append("\nlocal spare").append(i).append(" = ").append(i);
        }
        return QueueScript.SOURCE.substring(0, QueueScript.SOURCE.length() - tail.length()) + locals + tail;
    }

    private static Stream<String> limitFiles() {
        return Stream.concat(
                Stream.of(LimitScript.START, LimitScript.END, LimitScript.QUEUE_WAY), LimitScript.FILES.stream());
    }

    private static List<String> sources(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(SOURCES)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(name -> name.startsWith(prefix) && name.endsWith(".lua"))
                    .toList();
        }
    }
}
