package dev.sluice.redis;

import java.nio.file.Path;

/** For tests that start JVMs of their own: the java binary this JVM runs on. */
public final class ChildJvm {
    private ChildJvm() {}

    /**
     * The java command of this process, else {@code java.home}'s.
     *
     * @return the path of the java binary
     */
    public static String javaBinary() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
