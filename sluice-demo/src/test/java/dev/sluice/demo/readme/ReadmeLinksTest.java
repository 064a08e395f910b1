package dev.sluice.demo.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README's table of contents and its links to sections and files lead somewhere. */
class ReadmeLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void everyLinkToASectionOrAFileOfTheRepositoryResolves() throws IOException {
        Path readme = ReadmeExamplesTest.readme();
        List<String> lines = Files.readAllLines(readme);
        Set<String> anchors = lines.stream()
                .filter(line -> line.startsWith("#"))
                .map(ReadmeLinksTest::anchor)
                .collect(Collectors.toSet());

        for (int i = 0; i < lines.size(); i++) {
            for (Matcher link = LINK.matcher(lines.get(i)); link.find(); ) {
                String target = link.group(1);
                if (target.startsWith("#")) {
                    assertThat(anchors)
                            .as("README.md line %d: %s", i + 1, target)
                            .contains(target.substring(1));
                } else if (!target.contains("://")) {
                    assertThat(readme.resolveSibling(target))
                            .as("README.md line %d", i + 1)
                            .exists();
                }
            }
        }
    }

    @Test
    void anAnchorIsTheHeadingInLowerCaseWithoutPunctuationAndWithHyphensForSpaces() {
        assertThat(anchor("## Limits at the door (`sluice-http`)")).isEqualTo("limits-at-the-door-sluice-http");
        assertThat(anchor("## Dependencies, and why each is there")).isEqualTo("dependencies-and-why-each-is-there");
    }

    /** The anchor a Markdown renderer gives a heading, as GitHub makes them. */
    private static String anchor(String heading) {
        return heading.replaceFirst("^#+\\s*", "")
                .strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }
}
