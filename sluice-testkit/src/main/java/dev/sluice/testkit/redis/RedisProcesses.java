package dev.sluice.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Process, port and file chores shared by {@link RedisServer} and {@link RedisCluster}. */
final class RedisProcesses {
    static final String HOST = "127.0.0.1";

    /** Redis cluster nodes talk to each other on their client port plus this. */
    static final int CLUSTER_BUS_OFFSET = 10_000;

    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

    private RedisProcesses() {}

    /**
     * Starts a process. A binary written a moment ago can be briefly "busy" (ETXTBSY) while a process forked
     * by another thread still holds the write handle; such starts are tried again for up to a second.
     */
    static Process start(ProcessBuilder builder) throws IOException {
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        while (true) {
            try {
                return builder.start();
            } catch (IOException e) {
                String message = String.valueOf(e.getMessage());
                if (!message.contains("error=26") || System.nanoTime() > deadline) {
                    throw e;
                }
                sleep(Duration.ofMillis(20));
            }
        }
    }

    /** A port on 127.0.0.1 that nothing listens on right now. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free port on " + HOST, e);
        }
    }

    /** A free port on 127.0.0.1 whose cluster bus port ({@link #CLUSTER_BUS_OFFSET} higher) is free too. */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = freePort();
            if (port + CLUSTER_BUS_OFFSET <= 65_535 && isFree(port + CLUSTER_BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException(
                "found no free port on " + HOST + " whose cluster bus port (+" + CLUSTER_BUS_OFFSET + ") is free too");
    }

    /** Whether a connection to {@code port} on 127.0.0.1 is accepted. */
    static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), (int) PROBE_TIMEOUT.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether a Redis on {@code port} answers PING with PONG. */
    static boolean answersPing(int port) {
        try (RespClient client = RespClient.connect(HOST, port, PROBE_TIMEOUT)) {
            return "PONG".equals(client.call("PING"));
        } catch (IOException e) {
            return false;
        }
    }

    /** The last {@code lines} lines of a text file, or a note that it cannot be read. */
    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (NoSuchFileException e) {
            return "(no output: " + file + " does not exist)";
        } catch (IOException e) {
            return "(could not read " + file + ": " + e + ")";
        }
    }

    /** The text of a file from a byte offset on. */
    static String textSince(Path file, long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int from = (int) Math.min(offset, bytes.length);
        return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
    }

    /** Deletes a directory tree; a missing directory is fine. */
    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> tree = Files.walk(dir)) {
            deepestFirst = tree.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : deepestFirst) {
            Files.deleteIfExists(path);
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Redis", e);
        }
    }

    private static boolean isFree(int port) {
        try {
            new ServerSocket(port, 1, InetAddress.getByName(HOST)).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
