package dev.sluice.server;

import dev.sluice.Sluice;
import dev.sluice.server.internal.RootRedirect;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Sluice's HTTP API ({@link SluiceApiServlet}) and its live dashboard ({@link SluiceDashboardServlet}, at {@code
 * /dashboard/}, where {@code /} leads) on a Jetty server of its own, for {@code ./sluice serve} and for applications
 * that want it on a port of their own. Binds to the loopback interface unless told otherwise; without {@link
 * ApiTokens} it refuses any other interface, because every request could then change every queue.
 *
 * <pre>{@code
 * try (SluiceServer server = SluiceServer.builder(sluice).port(8080).start()) {
 *   System.out.println("API at " + server.uri());
 *   ...
 * }
 * }</pre>
 */
public final class SluiceServer implements AutoCloseable {
    private final Server jetty;
    private final URI uri;
    private final SluiceApiServlet api;

    private SluiceServer(Server jetty, URI uri, SluiceApiServlet api) {
        this.jetty = jetty;
        this.uri = uri;
        this.api = api;
    }

    /**
     * A builder of a server of the API over {@code sluice} without tokens ({@link ApiTokens#none()}), which the caller
     * keeps open while the server runs.
     *
     * @param sluice the engine whose queues the API serves
     * @return a builder: loopback, port 8080
     * @throws IllegalArgumentException if {@code sluice} is null
     */
    public static Builder builder(Sluice sluice) {
        return new Builder(new SluiceApiServlet(sluice));
    }

    /**
     * A builder of a server of {@code api}, as {@link SluiceApiServlet#builder} made it (with tokens, say).
     *
     * @param api the API to serve
     * @return a builder: loopback, port 8080
     * @throws IllegalArgumentException if {@code api} is null
     */
    public static Builder builder(SluiceApiServlet api) {
        if (api == null) {
            throw new IllegalArgumentException("api must not be null");
        }
        return new Builder(api);
    }

    /**
     * Where the server listens.
     *
     * @return its base URI, such as {@code http://127.0.0.1:8080/}
     */
    public URI uri() {
        return uri;
    }

    /** Stops the server: requests in progress are given up to 5 s to finish. Idempotent. */
    @Override
    public void close() {
        api.endStreams(); // open dashboards would hold the stop up to its timeout
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the server at " + uri + " did not stop cleanly: " + e.getMessage(), e);
        }
    }

    /** How a {@link SluiceServer} is made. */
    public static final class Builder {
        private final SluiceApiServlet api;
        private String host = "127.0.0.1";
        private String dashboardTitle = "Sluice";
        private int port = 8080;

        private Builder(SluiceApiServlet api) {
            this.api = api;
        }

        /**
         * Whether the dashboard is served at {@code /dashboard/}, and under what title.
         *
         * @param enabled false to serve the API alone (its {@code /api/v1/dashboard} feed stays)
         * @param title the page's title, 1 to 100 characters, such as the environment's name
         * @return this builder
         * @throws IllegalArgumentException if the title is null, blank or longer
         */
        public Builder dashboard(boolean enabled, String title) {
            if (title == null || title.isBlank() || title.length() > 100) {
                throw new IllegalArgumentException("the dashboard's title must be 1 to 100 characters, was " + title);
            }
            this.dashboardTitle = enabled ? title : null;
            return this;
        }

        /**
         * The interface to listen on.
         *
         * @param host a host name or address; {@code 127.0.0.1} by default. Any but a loopback address needs an API
         *     with tokens
         * @return this builder
         * @throws IllegalArgumentException if {@code host} is null or blank
         */
        public Builder host(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("host must be a host name or address, was " + host);
            }
            this.host = host;
            return this;
        }

        /**
         * The port to listen on.
         *
         * @param port 0 (a free port, which {@link SluiceServer#uri()} tells) to 65535; 8080 by default
         * @return this builder
         * @throws IllegalArgumentException if {@code port} is out of range
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Starts the server.
         *
         * @return the running server; close it to stop it
         * @throws IllegalStateException if it cannot listen (the port is taken, say), naming host and port, or if
         *     the host is not a loopback address and no token is configured
         */
        public SluiceServer start() {
            if (api.isOpen() && !isLoopback(host)) {
                throw new IllegalStateException("without API tokens the server listens on the loopback interface only"
                        + " (127.0.0.1, ::1 or localhost), not " + host + ": configure tokens to listen elsewhere");
            }
            QueuedThreadPool threads = new QueuedThreadPool();
            threads.setName("sluice-server");
            // requests run on virtual threads: a worker's long-polling claim holds one for up to a minute
            threads.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("sluice-request"));
            Server jetty = new Server(threads);
            jetty.setStopTimeout(5_000);
            ServerConnector connector = new ServerConnector(jetty);
            connector.setHost(host);
            connector.setPort(port);
            jetty.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.setContextPath("/");
            ServletHolder apiHolder = new ServletHolder(api);
            apiHolder.setAsyncSupported(true); // the dashboard's server-sent events
            context.addServlet(apiHolder, "/*");
            if (dashboardTitle != null) {
                context.addServlet(new ServletHolder(new SluiceDashboardServlet(dashboardTitle)), "/dashboard/*");
                context.addServlet(new ServletHolder(new RootRedirect()), ""); // exactly the root
            }
            jetty.setHandler(context);
            try {
                jetty.start();
            } catch (Exception e) {
                try {
                    jetty.stop();
                } catch (Exception ignored) {
                    // it never started
                }
                throw new IllegalStateException("cannot serve on " + host + ":" + port + ": " + e.getMessage(), e);
            }
            String shown = host.contains(":") ? "[" + host + "]" : host;
            return new SluiceServer(jetty, URI.create("http://" + shown + ":" + connector.getLocalPort() + "/"), api);
        }

        private static boolean isLoopback(String host) {
            try {
                for (InetAddress address : InetAddress.getAllByName(host)) {
                    if (!address.isLoopbackAddress()) {
                        return false;
                    }
                }
                return true;
            } catch (UnknownHostException unknown) {
                return false;
            }
        }
    }
}
