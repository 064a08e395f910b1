package dev.sluice.testkit.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the {@code redis-server} (and {@code redis-cli}) that tests run.
 *
 * <p>In order: the binary named by the system property {@value #SERVER_PROPERTY}; the bundled binary when
 * {@value #BUNDLED_PROPERTY} is {@code true}; {@code redis-server} from {@code PATH} when it is Redis
 * {@value #MIN_VERSION} or newer; else the bundled binary. The bundled binary (Redis {@value #BUNDLED_VERSION}
 * for Linux and macOS on x86-64 and arm64) comes from the jar of {@code org.signal:embedded-redis}.
 *
 * <p>{@code redis-cli} is used only when it sits in the same directory as the chosen {@code redis-server}.
 */
final class RedisBinaries {
    /** System property naming a {@code redis-server} binary to use. */
    static final String SERVER_PROPERTY = "sluice.redis.server";

    /** System property that, when {@code true}, forces the bundled binary even if Redis is installed. */
    static final String BUNDLED_PROPERTY = "sluice.redis.bundled";

    /** The Redis version that the bundled binaries are. */
    static final String BUNDLED_VERSION = "7.0.15";

    /** The oldest installed Redis used before falling back to the bundled one. */
    static final String MIN_VERSION = "6.2";

    private static final Pattern VERSION = Pattern.compile("\\bv=(\\d+(?:\\.\\d+)*)");
    private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();
    private static volatile Binary bundled;

    private RedisBinaries() {}

    /** A {@code redis-server} binary, its version, and the {@code redis-cli} next to it if there is one. */
    record Binary(Path server, Optional<Path> cli, String version, boolean isBundled) {}

    /** The binary to run, chosen as the class documentation says. */
    static Binary resolve() {
        String forced = System.getProperty(SERVER_PROPERTY, "").trim();
        if (!forced.isEmpty()) {
            Path server = Path.of(forced).toAbsolutePath();
            if (!Files.isRegularFile(server) || !Files.isExecutable(server)) {
                throw new IllegalStateException(
                        "-D" + SERVER_PROPERTY + " names " + server + ", which is not an executable file");
            }
            return installed(server);
        }
        if (Boolean.getBoolean(BUNDLED_PROPERTY)) {
            return bundled();
        }
        return onPath("redis-server")
                .map(RedisBinaries::installed)
                .filter(binary -> compareVersions(binary.version(), MIN_VERSION) >= 0)
                .orElseGet(RedisBinaries::bundled);
    }

    /** The bundled binary for this OS and architecture, extracted on first use. */
    static Binary bundled() {
        Binary binary = bundled;
        if (binary == null) {
            synchronized (RedisBinaries.class) {
                binary = bundled;
                if (binary == null) {
                    binary = extractBundled();
                    bundled = binary;
                }
            }
        }
        return binary;
    }

    /** The classpath resource holding the bundled binary for the given OS and architecture names. */
    static String bundledResource(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        String osPart;
        if (os.contains("linux")) {
            osPart = "linux";
        } else if (os.contains("mac") || os.contains("darwin")) {
            osPart = "darwin";
        } else {
            throw new IllegalStateException("no bundled redis-server for " + osName + ": install Redis " + MIN_VERSION
                    + "+ on the PATH or set -D" + SERVER_PROPERTY);
        }
        String archPart = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default ->
                throw new IllegalStateException("no bundled redis-server for " + osName + " on " + osArch
                        + ": install Redis " + MIN_VERSION + "+ on the PATH or set -D" + SERVER_PROPERTY);
        };
        return "redis-server-" + BUNDLED_VERSION + "-" + osPart + "-" + archPart;
    }

    /** The version that {@code server --version} prints, such as {@code 7.0.15}. */
    static String version(Path server) {
        return VERSIONS.computeIfAbsent(server, RedisBinaries::askVersion);
    }

    /** Compares dotted version numbers numerically: {@code 6.10 > 6.2}. */
    static int compareVersions(String a, String b) {
        String[] left = a.split("\\.");
        String[] right = b.split("\\.");
        for (int i = 0; i < Math.max(left.length, right.length); i++) {
            int l = i < left.length ? Integer.parseInt(left[i]) : 0;
            int r = i < right.length ? Integer.parseInt(right[i]) : 0;
            if (l != r) {
                return Integer.compare(l, r);
            }
        }
        return 0;
    }

    private static Binary installed(Path server) {
        Path cli = server.resolveSibling("redis-cli");
        Optional<Path> maybeCli = Files.isExecutable(cli) ? Optional.of(cli) : Optional.empty();
        return new Binary(server, maybeCli, version(server), false);
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            // not resolved through symlinks: redis-server picks its mode from the name it is started by
            Path candidate = Path.of(dir, name).toAbsolutePath();
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static Binary extractBundled() {
        String resource = bundledResource(System.getProperty("os.name"), System.getProperty("os.arch"));
        try (InputStream in = RedisBinaries.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " is not on the classpath: is "
                        + "org.signal:embedded-redis missing, or does its version no longer ship Redis "
                        + BUNDLED_VERSION + "?");
            }
            Path dir = Files.createTempDirectory("sluice-redis-bin-");
            Path server = dir.resolve("redis-server");
            dir.toFile().deleteOnExit();
            server.toFile().deleteOnExit();
            Files.copy(in, server, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(server, PosixFilePermissions.fromString("rwx------"));
            return new Binary(server, Optional.empty(), version(server), true);
        } catch (IOException e) {
            throw new UncheckedIOException("could not extract the bundled redis-server from " + resource, e);
        }
    }

    private static String askVersion(Path server) {
        try {
            Process process =
                    RedisProcesses.start(new ProcessBuilder(server.toString(), "--version").redirectErrorStream(true));
            process.getOutputStream().close();
            String output;
            try (InputStream out = process.getInputStream()) {
                output = new String(out.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(server + " --version did not finish within 10 s");
            }
            Matcher matcher = VERSION.matcher(output);
            if (process.exitValue() != 0 || !matcher.find()) {
                throw new IllegalStateException(server + " --version exited with " + process.exitValue()
                        + " and printed no version: " + output);
            }
            return matcher.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + server + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking " + server + " for its version", e);
        }
    }
}
