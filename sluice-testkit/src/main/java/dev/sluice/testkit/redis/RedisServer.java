package dev.sluice.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A {@code redis-server} process of its own on a free port of 127.0.0.1, for tests that need a real Redis they
 * can kill and restart.
 *
 * <p>The server keeps no data on disk ({@code save ""}, {@code appendonly no}) and works in a private temporary
 * directory that {@link #close()} deletes. Processes still running when the JVM exits are killed by a shutdown
 * hook. The binary is {@code redis-server} from the {@code PATH}, or a bundled one where none is installed; the
 * system properties {@code sluice.redis.server=/path/to/redis-server} and {@code sluice.redis.bundled=true}
 * override that choice.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     RedisClient client = RedisClient.create(redis.uri());
 *     ...
 *     redis.kill();     // the server is gone: connections are refused
 *     redis.restart();  // back on the same port, empty
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class RedisServer implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int PORT_ATTEMPTS = 5;
    private static final int LOG_TAIL_LINES = 30;
    private static final List<String> RESERVED_OPTIONS = List.of("--port", "--bind", "--dir", "--daemonize");

    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();
    private static RedisServer shared;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RedisServer::destroyAllLive, "sluice-redis-cleanup"));
    }

    private final RedisBinaries.Binary binary;
    private final List<String> extraArgs;
    private final Path dir;
    private final Path log;
    private final boolean isShared;
    private int port;
    private Process process;
    private boolean closed;

    private RedisServer(RedisBinaries.Binary binary, List<String> extraArgs, boolean isShared) {
        this.binary = binary;
        this.extraArgs = extraArgs;
        this.isShared = isShared;
        try {
            this.dir = Files.createTempDirectory("sluice-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a temporary directory for redis-server", e);
        }
        this.log = dir.resolve("redis.log");
        LIVE.add(this);
    }

    /**
     * Starts a Redis server on a free port and returns once it answers PING.
     *
     * @return the running server, to close after use
     */
    public static RedisServer start() {
        return start(new String[0]);
    }

    /**
     * Starts a Redis server with extra options, such as {@code "--maxmemory", "10mb"}, and returns once it answers
     * PING. Options come as separate arguments, each name starting with {@code --}; the port, bind address,
     * directory and daemonizing are this class's to set.
     *
     * @param extraArgs option names and values, in the order {@code redis-server} takes them
     * @return the running server, to close after use
     * @throws IllegalArgumentException if an option sets the port, bind address, directory or daemonizing
     */
    public static RedisServer start(String... extraArgs) {
        List<String> args = List.of(extraArgs);
        for (String arg : args) {
            if (RESERVED_OPTIONS.contains(arg)) {
                throw new IllegalArgumentException(
                        arg + " cannot be set: RedisServer chooses " + String.join(", ", RESERVED_OPTIONS) + " itself");
            }
        }
        return start(RedisBinaries.resolve(), args, RedisProcesses::freePort, false);
    }

    /**
     * One server for the whole JVM, started on first use, for tests that need <em>a</em> Redis and keep to keys
     * of their own. {@link #close()} on it does nothing (a shutdown hook stops it); if a test killed it, it is
     * restarted.
     *
     * @return the shared server, running
     */
    public static synchronized RedisServer shared() {
        if (shared == null) {
            shared = start(RedisBinaries.resolve(), List.of(), RedisProcesses::freePort, true);
        } else if (!shared.isRunning()) {
            shared.restart();
        }
        return shared;
    }

    /** Starts a server from the given binary on a port from {@code ports}, trying other ports if one is taken. */
    static RedisServer start(RedisBinaries.Binary binary, List<String> extraArgs, IntSupplier ports, boolean isShared) {
        RedisServer server = new RedisServer(binary, List.copyOf(extraArgs), isShared);
        try {
            server.launchOnFreePort(ports);
            return server;
        } catch (RuntimeException | Error e) {
            server.destroy();
            throw e;
        }
    }

    /**
     * The port the server listens on; it stays the same across {@link #restart()}.
     *
     * @return the port
     */
    public synchronized int port() {
        return port;
    }

    /**
     * The address the server listens on: {@code 127.0.0.1}.
     *
     * @return {@code "127.0.0.1"}
     */
    public String host() {
        return RedisProcesses.HOST;
    }

    /**
     * The server's address as a Redis URI: {@code redis://127.0.0.1:<port>}.
     *
     * @return the URI, for a Redis client
     */
    public String uri() {
        return "redis://" + host() + ":" + port();
    }

    /**
     * The version of the Redis binary, such as {@code 7.0.15}.
     *
     * @return the version, as the binary reports it
     */
    public String version() {
        return binary.version();
    }

    /**
     * The {@code redis-server} binary this server runs.
     *
     * @return the path of the binary
     */
    public Path binary() {
        return binary.server();
    }

    /**
     * Whether the server process is running: started, and not killed, closed or crashed since.
     *
     * @return true if the process is alive
     */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Kills the server at once (SIGKILL, as a crash would) and returns when its port refuses connections. Does
     * nothing if it is not running.
     *
     * @throws IllegalStateException if the process or its port outlives the kill by 10 s
     */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        Process dying = process;
        process = null;
        dying.descendants().forEach(ProcessHandle::destroyForcibly);
        dying.destroyForcibly();
        try {
            if (!dying.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("redis-server (pid " + dying.pid() + ") did not die within "
                        + STOP_TIMEOUT.toSeconds() + " s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing redis-server on port " + port, e);
        }
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        while (RedisProcesses.accepts(port)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("port " + port + " still accepts connections "
                        + STOP_TIMEOUT.toSeconds() + " s after redis-server was killed: something else listens on it");
            }
            RedisProcesses.sleep(Duration.ofMillis(10));
        }
    }

    /**
     * Starts the server again on the same port with the same options, killing it first if it runs, and returns
     * once it answers PING. Data kept only in memory is gone; a cluster node keeps its cluster configuration.
     *
     * @throws IllegalStateException if the server was closed, or does not come up within 10 s
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("cannot restart " + this + ": it is closed");
        }
        kill();
        launch();
    }

    /** Kills the server and deletes its directory. Idempotent; does nothing on {@link #shared()}. */
    @Override
    public void close() {
        if (!isShared) {
            destroy();
        }
    }

    @Override
    public synchronized String toString() {
        return "RedisServer[" + host() + ":" + port + ", Redis " + version() + " at " + binary() + "]";
    }

    /** The directory the server works in (its log and, for a cluster node, its {@code nodes.conf}). */
    Path dir() {
        return dir;
    }

    /** The last lines of what the process printed, for failure messages. */
    String logTail() {
        return RedisProcesses.tail(log, LOG_TAIL_LINES);
    }

    private static void destroyAllLive() {
        for (RedisServer server : List.copyOf(LIVE)) {
            try {
                server.destroy();
            } catch (Throwable e) {
                System.err.println("sluice-testkit: could not clean up " + server + ": " + e);
            }
        }
    }

    private synchronized void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            kill();
        } finally {
            LIVE.remove(this);
            try {
                RedisProcesses.deleteRecursively(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("could not delete " + dir + " of " + this, e);
            }
        }
    }

    private synchronized void launchOnFreePort(IntSupplier ports) {
        for (int attempt = 1; ; attempt++) {
            port = ports.getAsInt();
            try {
                launch();
                return;
            } catch (PortTakenException e) {
                if (attempt == PORT_ATTEMPTS) {
                    throw new IllegalStateException(
                            "redis-server found its port taken " + PORT_ATTEMPTS + " times in a row", e);
                }
            }
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(
                binary.server().toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                RedisProcesses.HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--dir",
                dir.toString()));
        command.addAll(extraArgs);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        try {
            long logStart = Files.exists(log) ? Files.size(log) : 0;
            process = RedisProcesses.start(builder);
            process.getOutputStream().close();
            awaitUp(process, logStart);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + binary.server(), e);
        }
    }

    private void awaitUp(Process starting, long logStart) throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!answersAsItself(starting)) {
            if (!starting.isAlive()) {
                process = null;
                String tail = logTail();
                if (RedisProcesses.textSince(log, logStart).contains("Address already in use")) {
                    throw new PortTakenException(port, tail);
                }
                throw new IllegalStateException("redis-server exited with " + starting.exitValue()
                        + " before answering on port " + port + " (" + binary.server() + "); its output ends with:\n"
                        + tail);
            }
            if (System.nanoTime() > deadline) {
                kill();
                throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
                        + START_TIMEOUT.toSeconds() + " s (" + binary.server() + "); its output ends with:\n"
                        + logTail());
            }
            RedisProcesses.sleep(Duration.ofMillis(20));
        }
    }

    /** Whether our process (not another one that holds the port) answers PING. */
    private boolean answersAsItself(Process starting) {
        try (RespClient client = RespClient.connect(RedisProcesses.HOST, port, Duration.ofMillis(500))) {
            if (!"PONG".equals(client.call("PING"))) {
                return false;
            }
            String info = client.callString("INFO", "server");
            return info.lines().anyMatch(line -> line.equals("process_id:" + starting.pid()));
        } catch (IOException e) {
            return false;
        }
    }

    private static final class PortTakenException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortTakenException(int port, String logTail) {
            super("redis-server could not listen on port " + port
                    + ": another process holds it; its output ends with:\n" + logTail);
        }
    }
}
