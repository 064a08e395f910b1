package dev.sluice.demo.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of the project's README compiles, and those marked {@code runs} (in memory,
 * nothing outside the JVM) run to their end without throwing. See {@link JavaBlock} for the comment that
 * gives a block what it uses without showing it.
 */
class ReadmeExamplesTest {

    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path classes;

    @TestFactory
    Stream<DynamicTest> everyJavaBlockOfTheReadmeCompilesAndThoseMarkedRunsRun() throws IOException {
        List<JavaBlock> blocks = JavaBlock.parse(Files.readAllLines(readme()));
        assertThat(blocks).as("java blocks in the README").hasSizeGreaterThan(5);
        assertThat(blocks.stream().filter(JavaBlock::runs))
                .as("blocks that run")
                .hasSizeGreaterThan(3);
        Examples examples = Examples.compile("README.md", blocks, classes);
        return blocks.stream().map(block -> dynamicTest(describe(block), () -> check(examples, block)));
    }

    @Test
    void aBlockThatDoesNotCompileFailsWithTheCompilersMessageAndItsLine() throws IOException {
        List<String> markdown =
                List.of("# Title", "", "```java", "String ok = \"fine\";", "int broken = \"not a number\";", "```");
        JavaBlock block = JavaBlock.parse(markdown).getFirst();
        Examples examples = Examples.compile("GUIDE.md", List.of(block), classes);

        assertThatThrownBy(() -> check(examples, block))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(
                        "GUIDE.md line 5: incompatible types: java.lang.String cannot be converted to int");
    }

    @Test
    void aContextGivesItsImportsAndMembersAndABlockThatThrowsFailsNamingItsLine() throws IOException {
        List<String> markdown = List.of(
                "<!-- runs with: import java.util.function.IntSupplier;",
                "     IntSupplier answer = () -> 42; void require(boolean ok) { if (!ok) throw new IllegalStateException(\"no\"); } -->",
                "```java",
                "require(answer.getAsInt() == 41);",
                "```");
        JavaBlock block = JavaBlock.parse(markdown).getFirst();
        assertThat(block.runs()).isTrue();
        assertThat(block.imports()).containsExactly("import java.util.function.IntSupplier;");
        Examples examples = Examples.compile("GUIDE.md", List.of(block), classes);

        assertThat(examples.errors(block)).isEmpty();
        assertThatThrownBy(() -> check(examples, block))
                .hasMessageContaining("GUIDE.md: the java block at line 3 threw java.lang.IllegalStateException: no");
    }

    @Test
    void aCommentAboveABlockThatSaysNeitherRunsNorCompilesIsRefused() {
        List<String> markdown = List.of("<!-- run with: int x = 1; -->", "```java", "int y = x;", "```");

        assertThatThrownBy(() -> JavaBlock.parse(markdown))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2 must be <!-- compiles with: ... -->");
    }

    private static void check(Examples examples, JavaBlock block) {
        List<String> errors = examples.errors(block);
        if (!errors.isEmpty()) {
            throw new AssertionError(
                    "the java block at line " + block.fenceLine() + " does not compile:\n" + String.join("\n", errors));
        }
        if (block.runs()) {
            assertTimeoutPreemptively(RUN_TIMEOUT, () -> examples.run(block));
        }
    }

    private static String describe(JavaBlock block) {
        return "README.md line " + block.fenceLine() + (block.runs() ? ": compiles and runs" : ": compiles");
    }

    /** The README beside the root pom: this module's parent directory when Maven runs the tests. */
    static Path readme() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("sluice-core"))) {
                return dir.resolve("README.md");
            }
        }
        throw new IllegalStateException("no README.md beside a sluice-core directory above "
                + Path.of("").toAbsolutePath());
    }
}
