package dev.sluice.demo.readme;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ```java} block of a Markdown file, with what the HTML comment right above it says about it:
 *
 * <ul>
 *   <li>no comment: the block compiles as it stands;
 *   <li>{@code <!-- compiles with: MEMBERS -->}: it compiles beside MEMBERS;
 *   <li>{@code <!-- runs with: MEMBERS -->} or {@code <!-- runs -->}: it compiles, and also runs.
 * </ul>
 *
 * MEMBERS are members of the class whose method body the block becomes (fields, methods, records), optionally
 * preceded by {@code import} declarations. The comment may span lines.
 *
 * @param fenceLine the line of the opening fence, counted from 1
 * @param body the lines between the fences, without the fence's indentation
 * @param runs whether the block is to run, not only compile
 * @param imports the import declarations of the comment
 * @param members the class members of the comment
 */
record JavaBlock(int fenceLine, List<String> body, boolean runs, List<String> imports, String members) {

    private static final Pattern DIRECTIVE = Pattern.compile("(?s)<!--\\s*(runs|compiles)(?:\\s+with:(.*?))?\\s*-->");
    private static final Pattern IMPORT = Pattern.compile("^\\s*(import\\s+(?:static\\s+)?[\\w.]+(?:\\.\\*)?\\s*;)");

    JavaBlock {
        body = List.copyOf(body);
        imports = List.copyOf(imports);
    }

    /** The README line of the body's line {@code index} (from 0). */
    int lineOf(int index) {
        return fenceLine + 1 + index;
    }

    /**
     * Every {@code ```java} block of {@code lines}.
     *
     * @throws IllegalArgumentException if a block is not closed, or the comment right above one is neither
     *     {@code runs} nor {@code compiles}
     */
    static List<JavaBlock> parse(List<String> lines) {
        List<JavaBlock> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            int indent = lines.get(i).indexOf('`');
            int fence = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                String line = lines.get(i);
                body.add(line.substring(
                        Math.min(indent, line.length() - line.stripLeading().length())));
            }
            if (i == lines.size()) {
                throw new IllegalArgumentException("the java block at line " + (fence + 1) + " is never closed");
            }
            blocks.add(withComment(fence + 1, body, commentAbove(lines, fence)));
        }
        return blocks;
    }

    private static String commentAbove(List<String> lines, int fence) {
        int end = fence - 1;
        if (end < 0 || !lines.get(end).strip().endsWith("-->")) {
            return null;
        }
        int start = end;
        while (start > 0 && !lines.get(start).contains("<!--")) {
            start--;
        }
        return String.join("\n", lines.subList(start, end + 1)).strip();
    }

    private static JavaBlock withComment(int fenceLine, List<String> body, String comment) {
        if (comment == null) {
            return new JavaBlock(fenceLine, body, false, List.of(), "");
        }
        Matcher directive = DIRECTIVE.matcher(comment);
        if (!directive.matches()) {
            throw new IllegalArgumentException("the comment above the java block at line " + fenceLine
                    + " must be <!-- compiles with: ... -->, <!-- runs with: ... --> or <!-- runs -->, not: "
                    + comment);
        }
        String rest = directive.group(2) == null ? "" : directive.group(2).strip();
        List<String> imports = new ArrayList<>();
        for (Matcher in = IMPORT.matcher(rest); in.find(); in = IMPORT.matcher(rest)) {
            imports.add(in.group(1));
            rest = rest.substring(in.end()).strip();
        }
        return new JavaBlock(fenceLine, body, directive.group(1).equals("runs"), imports, rest);
    }
}
