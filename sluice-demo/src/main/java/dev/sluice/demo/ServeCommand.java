package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.micrometer.SluiceMetrics;
import dev.sluice.server.ServerConfig;
import dev.sluice.server.SluiceApiServlet;
import dev.sluice.server.SluiceServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code ./sluice serve}: Sluice's HTTP API ({@link SluiceServer}) over the in-memory engine, or over every queue of
 * the Redis at {@code --redis}, until SIGTERM or Ctrl-C; with {@code --config FILE}, the queues, limiters, chains,
 * tokens, host and port that file declares ({@link ServerConfig}), the command line's options winning over it.
 */
final class ServeCommand {
    static final List<Option> OPTIONS = List.of(
            Option.wholeNumber("--port", "P", 0, 65_535),
            QueueCommands.REDIS,
            Option.text("--config", "FILE", "a YAML file such as sluice-demo/sluice.example.yaml"));

    /** The port unless {@code --port} or the file says otherwise. */
    static final int DEFAULT_PORT = ServerConfig.DEFAULT_PORT;

    private final int port;
    private final String redis;
    private final ServerConfig config;
    private final String configFile;

    private ServeCommand(int port, String redis, ServerConfig config, String configFile) {
        this.port = port;
        this.redis = redis;
        this.config = config;
        this.configFile = configFile;
    }

    /**
     * The command as {@code options} give it, checked before anything connects or listens: a configuration file is
     * read and checked whole here.
     *
     * @throws IllegalArgumentException if the configuration file cannot be read or is not valid, naming the key
     */
    static ServeCommand of(Options options) throws UsageException {
        String file = options.text("--config");
        ServerConfig config = file == null ? null : ServerConfig.load(Path.of(file));
        int port = (int) options.wholeNumber("--port", config == null ? DEFAULT_PORT : config.port());
        String redis = options.text("--redis");
        if (redis == null && config != null) {
            redis = config.redis();
        }
        return new ServeCommand(port, redis, config, file);
    }

    /**
     * Connects (to Redis, if asked), opens what the configuration file declares, starts the server and says what it
     * serves and where on {@code out}.
     */
    Main.Running start(PrintStream out) {
        Sluice sluice = redis == null ? Sluice.inMemory() : QueueCommands.connect(redis);
        Served served;
        try {
            SluiceApiServlet.Builder api = config == null ? SluiceApiServlet.builder(sluice) : config.open(sluice);
            served = serve(
                    sluice,
                    api,
                    config == null ? null : config.host(),
                    port,
                    config == null ? null : config.dashboard());
        } catch (RuntimeException e) {
            sluice.close();
            throw e;
        }
        SluiceServer server = served.server();
        boolean open = config == null || config.tokens().isEmpty();
        out.println("sluice serve: the API of " + (redis == null ? "the in-memory engine" : "the Redis at " + redis)
                + " at " + server.uri() + "api/v1/queues"
                + (open ? " (no tokens: every request may do everything, so it listens on loopback only)" : "")
                + "; SIGTERM or Ctrl-C stops it");
        if (config == null || config.dashboard().enabled()) {
            out.println("sluice serve: the dashboard at " + server.uri() + "dashboard/");
        }
        if (config != null) {
            out.println("sluice serve: from " + configFile + ": queues "
                    + names(config.queues().keySet())
                    + "; limiters " + names(config.limiters().keySet()) + " and chains "
                    + names(config.chains().keySet()) + " at " + server.uri() + "api/v1/limiters; tokens "
                    + (config.tokens().isEmpty()
                            ? "none"
                            : config.tokens().stream()
                                    .map(t -> t.name() + " (" + t.scope() + ")")
                                    .collect(Collectors.joining(", "))));
        }
        out.flush();
        boolean[] stopped = {false};
        return () -> {
            synchronized (stopped) {
                if (!stopped[0]) {
                    stopped[0] = true;
                    served.close();
                    sluice.close();
                    out.println("sluice serve: stopped");
                    out.flush();
                }
            }
        };
    }

    /** A server of the API and the dashboard, and the engine's meters it serves at {@code /metrics}. */
    record Served(SluiceServer server, SluiceMetrics metrics) implements AutoCloseable {
        /** Stops the server, then unbinds the meters; the engine stays open. */
        @Override
        public void close() {
            server.close();
            metrics.close();
        }
    }

    /**
     * Starts a server of {@code api} (the API and the dashboard) over {@code sluice}, which the caller keeps open
     * while it serves, with the engine's meters at {@code /metrics}.
     *
     * @param host the interface to listen on, or null for loopback
     * @param port the port, 0 for a free one
     * @param dashboard whether to serve the dashboard and its title, or null for the default (served, "Sluice")
     * @throws IllegalStateException if it cannot listen there
     */
    static Served serve(
            Sluice sluice, SluiceApiServlet.Builder api, String host, int port, ServerConfig.Dashboard dashboard) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        SluiceMetrics metrics = SluiceMetrics.bind(sluice, registry);
        try {
            SluiceServer.Builder builder =
                    SluiceServer.builder(api.prometheus(registry).build());
            if (host != null) {
                builder.host(host);
            }
            if (dashboard != null) {
                builder.dashboard(dashboard.enabled(), dashboard.title());
            }
            return new Served(builder.port(port).start(), metrics);
        } catch (RuntimeException e) {
            metrics.close();
            throw e;
        }
    }

    private static String names(Collection<String> names) {
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
