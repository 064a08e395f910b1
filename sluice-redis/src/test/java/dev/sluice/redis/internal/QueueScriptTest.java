package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The queue library is every queue-*.lua file of the sources, the limit script every limit-*.lua file, each once,
 * none over what one person can read.
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
