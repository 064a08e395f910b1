package dev.sluice.server.internal;

import dev.sluice.SluiceException;
import dev.sluice.server.internal.Problem.Kind;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's routes below {@code /api/v1/dashboard}, all GET:
 *
 * <ul>
 *   <li>{@code snapshot}: the latest snapshot (built now if a second old);
 *   <li>{@code history}: the last ten minutes, a point per queue and snapshot;
 *   <li>{@code events}: server-sent events: at once a {@code history} event and the latest {@code snapshot} (also
 *       after a reconnect, whatever its {@code Last-Event-ID}), then a {@code snapshot} event, whose {@code id:} is
 *       the snapshot's id, each time a new one is built (once a second), and a comment line as heartbeat when
 *       none is built for {@link #HEARTBEAT_SECONDS} s. Every stream shares the one snapshot of the {@link
 *       DashboardFeed}. Each stream is written by a virtual thread of its own, so a slow reader holds up no other.
 * </ul>
 */
public final class DashboardRoutes {
    /** The longest a stream stays silent: it then sends a comment, so proxies and clients see it is alive. */
    public static final long HEARTBEAT_SECONDS = 15;

    private static final Logger LOG = LoggerFactory.getLogger(DashboardRoutes.class);

    private final DashboardFeed feed;

    /** The routes over {@code feed}. */
    public DashboardRoutes(DashboardFeed feed) {
        this.feed = feed;
    }

    /**
     * Serves {@code method} on {@code path}, the segments after {@code /api/v1/dashboard}.
     *
     * @throws Problem if the request is refused
     * @throws SluiceException if the engine cannot be reached
     */
    public void serve(HttpServletRequest request, HttpServletResponse response, List<String> path) throws IOException {
        String what = path.size() == 1 ? path.get(0) : "";
        if (!List.of("snapshot", "history", "events").contains(what)) {
            throw new Problem(
                    Kind.NOT_FOUND,
                    "no resource at /api/v1/dashboard/" + String.join("/", path) + " (snapshot, history, events)");
        }
        if (!request.getMethod().equals("GET")) {
            throw new Problem(
                    Kind.METHOD_NOT_ALLOWED,
                    request.getMethod() + " is not allowed on /api/v1/dashboard/" + what + " (GET)");
        }
        switch (what) {
            case "snapshot" -> json(response, feed.latest().json());
            case "history" -> json(response, feed.history());
            default -> stream(request, response);
        }
    }

    private static void json(HttpServletResponse response, String json) throws IOException {
        response.setStatus(200);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
    }

    private void stream(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!request.isAsyncSupported()) {
            throw new Problem(
                    Kind.UNAVAILABLE,
                    "server-sent events need the API servlet to be async-supported in its container;"
                            + " poll /api/v1/dashboard/snapshot instead");
        }
        if (feed.isClosed()) {
            throw new Problem(Kind.UNAVAILABLE, "the dashboard is closed: the server is stopping");
        }
        response.setStatus(200);
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Accel-Buffering", "no");
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        ServletOutputStream out = response.getOutputStream();
        feed.watch();
        Thread.ofVirtual().name("sluice-dashboard-stream").start(() -> {
            try {
                send(out);
            } finally {
                feed.unwatch();
                async.complete();
            }
        });
    }

    /** Writes the stream until the client goes, the feed closes or the thread is interrupted. */
    private void send(ServletOutputStream out) {
        try {
            write(out, "retry: 2000\n\nevent: history\ndata: " + feed.history() + "\n\n");
            long sent = 0;
            try {
                sent = event(out, feed.latest());
            } catch (SluiceException unavailable) {
                write(out, ": the engine could not be read: " + oneLine(unavailable.getMessage()) + "\n\n");
            }
            while (!feed.isClosed()) {
                DashboardFeed.Snapshot next = feed.awaitNewer(sent, TimeUnit.SECONDS.toNanos(HEARTBEAT_SECONDS));
                if (next == null) {
                    write(out, ": heartbeat\n\n");
                } else {
                    sent = event(out, next);
                }
            }
        } catch (IOException gone) {
            LOG.debug("dashboard stream closed by the client: {}", gone.getMessage());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("dashboard stream ended: {}", e.toString());
        }
    }

    private static long event(ServletOutputStream out, DashboardFeed.Snapshot snapshot) throws IOException {
        write(out, "id: " + snapshot.id() + "\nevent: snapshot\ndata: " + snapshot.json() + "\n\n");
        return snapshot.id();
    }

    private static void write(ServletOutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replaceAll("[\\r\\n]+", " ");
    }
}
