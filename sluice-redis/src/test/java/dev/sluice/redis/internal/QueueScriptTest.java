package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The queue library is every queue-*.lua file of the sources, each once, none over what one person can read. */
class QueueScriptTest {
    private static final Path SOURCES = Path.of("src/main/resources/dev/sluice/redis/internal");

    @Test
    void theLibraryJoinsEveryQueueFileOfTheSourcesOnce() throws IOException {
        try (Stream<Path> files = Files.list(SOURCES)) {
            assertThat(QueueScript.FILES)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(
                            files.map(f -> f.getFileName().toString())
                                    .filter(name -> name.startsWith("queue") && name.endsWith(".lua"))
                                    .toList());
        }
    }

    @Test
    void noFileOfTheLibraryIsLongerThan300Lines() throws IOException {
        for (String file : QueueScript.FILES) {
            assertThat(Files.readAllLines(SOURCES.resolve(file))).as(file).hasSizeLessThanOrEqualTo(300);
        }
    }
}
