package dev.sluice.demo.readme;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles {@link JavaBlock}s, each as the body of a method {@code run()} of a class of its own, against this
 * JVM's class path (so Surefire must not hand it a manifest-only jar), and runs those that say so. Every block is given {@link #COMMON_IMPORTS}; the imports a
 * block or its comment holds are hoisted to the top.
 */
final class Examples {

    static final String COMMON_IMPORTS = "import dev.sluice.*; import dev.sluice.limit.*; import dev.sluice.queue.*; "
            + "import dev.sluice.time.*; import java.time.*; import java.util.*; import java.util.concurrent.*;";

    private final String file;
    private final List<JavaBlock> blocks;
    private final Path classes;
    private final Map<JavaBlock, List<String>> errors = new HashMap<>();

    private Examples(String file, List<JavaBlock> blocks, Path classes) {
        this.file = file;
        this.blocks = blocks;
        this.classes = classes;
    }

    /**
     * Compiles every block of {@code blocks} with the system compiler, into {@code classes}.
     *
     * @param file the Markdown file's name, for messages
     */
    static Examples compile(String file, List<JavaBlock> blocks, Path classes) throws IOException {
        Examples examples = new Examples(file, blocks, classes);
        examples.compileAll();
        return examples;
    }

    /** The compiler's errors for {@code block}, each naming the line of the Markdown file it is on. */
    List<String> errors(JavaBlock block) {
        return errors.getOrDefault(block, List.of());
    }

    /**
     * Runs {@code block} (compiled without error) on the calling thread, then closes each field of its comment
     * that is {@link AutoCloseable}, the last declared first.
     *
     * @throws AssertionError naming the block's line, with what it threw as the cause
     */
    void run(JavaBlock block) throws Exception {
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {classes.toUri().toURL()}, Examples.class.getClassLoader())) {
            Object example = null;
            try {
                example = loader.loadClass(className(block)).getConstructor().newInstance();
                example.getClass().getMethod("run").invoke(example);
            } catch (InvocationTargetException e) {
                throw new AssertionError(
                        file + ": the java block at line " + block.fenceLine() + " threw " + e.getCause(),
                        e.getCause());
            } finally {
                if (example != null) {
                    closeFields(example);
                }
            }
        }
    }

    private static void closeFields(Object example) throws Exception {
        Field[] fields = example.getClass().getDeclaredFields();
        for (int i = fields.length - 1; i >= 0; i--) {
            fields[i].setAccessible(true);
            if (fields[i].get(example) instanceof AutoCloseable closeable) {
                closeable.close();
            }
        }
    }

    private static String className(JavaBlock block) {
        return "ReadmeLine" + block.fenceLine();
    }

    /** Each block in a compilation of its own: javac writes no class at all when one of its sources fails. */
    private void compileAll() throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        Path sourceDir = Files.createDirectories(classes.resolve("sources"));
        List<String> options = List.of(
                "--release",
                "21",
                "-proc:none",
                "-classpath",
                System.getProperty("java.class.path"),
                "-d",
                classes.toString());
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, Locale.ROOT, null)) {
            for (JavaBlock block : blocks) {
                Source source = Source.of(block);
                Path path = sourceDir.resolve(className(block) + ".java");
                Files.writeString(path, String.join("\n", source.lines()));
                DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
                compiler.getTask(null, files, diagnostics, options, null, files.getJavaFileObjects(path))
                        .call();
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    if (d.getKind() == Diagnostic.Kind.ERROR) {
                        errors.computeIfAbsent(block, b -> new ArrayList<>())
                                .add(file + " line " + source.readmeLine((int) d.getLineNumber()) + ": "
                                        + d.getMessage(Locale.ROOT));
                    }
                }
            }
        }
    }

    /** A block's class, line by line, with the line of the Markdown file each came from. */
    private record Source(JavaBlock block, List<String> lines, List<Integer> readmeLines) {

        static Source of(JavaBlock block) {
            Source s = new Source(block, new ArrayList<>(), new ArrayList<>());
            int comment = block.fenceLine() - 1;
            s.add(COMMON_IMPORTS, block.fenceLine());
            block.imports().forEach(line -> s.add(line, comment));
            for (int i = 0; i < block.body().size(); i++) {
                if (isImport(block.body().get(i))) {
                    s.add(block.body().get(i), block.lineOf(i));
                }
            }
            s.add("public class " + className(block) + " { public void run() throws Exception {", block.fenceLine());
            for (int i = 0; i < block.body().size(); i++) {
                String line = block.body().get(i);
                s.add(isImport(line) ? "" : line, block.lineOf(i));
            }
            s.add("}", block.lineOf(block.body().size()));
            block.members().lines().forEach(line -> s.add(line, comment));
            s.add("}", block.lineOf(block.body().size()));
            return s;
        }

        private static boolean isImport(String line) {
            return line.startsWith("import ");
        }

        private void add(String line, int readmeLine) {
            lines.add(line);
            readmeLines.add(readmeLine);
        }

        int readmeLine(int sourceLine) {
            return readmeLines.get(Math.clamp(sourceLine - 1, 0, readmeLines.size() - 1));
        }
    }
}
