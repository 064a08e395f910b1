package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
