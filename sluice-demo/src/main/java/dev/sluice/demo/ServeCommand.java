package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.server.SluiceServer;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code ./sluice serve}: Sluice's HTTP API ({@link SluiceServer}) over the in-memory engine, or over every queue of
 * the Redis at {@code --redis}, on the loopback interface, until SIGTERM or Ctrl-C.
 */
final class ServeCommand {
    static final List<Option> OPTIONS = List.of(Option.wholeNumber("--port", "P", 0, 65_535), QueueCommands.REDIS);

    /** The port unless {@code --port} says otherwise. */
    static final int DEFAULT_PORT = 8080;

    private final int port;
    private final String redis;

    private ServeCommand(int port, String redis) {
        this.port = port;
        this.redis = redis;
    }

    /** The command as {@code options} give it, checked before anything connects or listens. */
    static ServeCommand of(Options options) throws UsageException {
        return new ServeCommand((int) options.wholeNumber("--port", DEFAULT_PORT), options.text("--redis"));
    }

    /** Connects (to Redis, if asked), starts the server and says where it listens on {@code out}. */
    Main.Running start(PrintStream out) {
        Sluice sluice = redis == null ? Sluice.inMemory() : QueueCommands.connect(redis);
        SluiceServer server;
        try {
            server = SluiceServer.builder(sluice).port(port).start();
        } catch (RuntimeException e) {
            sluice.close();
            throw e;
        }
        out.println("sluice serve: the API of " + (redis == null ? "the in-memory engine" : "the Redis at " + redis)
                + " at " + server.uri() + "api/v1/queues (loopback only: no authentication yet); SIGTERM or"
                + " Ctrl-C stops it");
        out.flush();
        boolean[] stopped = {false};
        return () -> {
            synchronized (stopped) {
                if (!stopped[0]) {
                    stopped[0] = true;
                    server.close();
                    sluice.close();
                    out.println("sluice serve: stopped");
                    out.flush();
                }
            }
        };
    }
}
