package dev.sluice.server;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Sluice's live dashboard as a servlet: an HTML page, its script and styles, and the uPlot charting library, all from
 * the classpath (nothing is fetched from elsewhere). The page reads and steers the queues through {@link
 * SluiceApiServlet} at the relative address {@code ../api/v1/}, so mount the two side by side: the dashboard at
 * {@code <base>/dashboard/*} and the API at {@code <base>/*} ({@link SluiceServer} does so with an empty base). The
 * API servlet must be async-supported for the page's live updates; without, the page polls.
 *
 * <p>The page has no authentication of its own: it acts with the API's access (a token it is given, or the host
 * application's security). Thread-safe; holds no engine.
 */
public final class SluiceDashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final String OWN = "/dev/sluice/server/dashboard/";
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
    private static final String SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'"
            + " 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none';"
            + " form-action 'none'";

    private record Asset(String type, byte[] bytes) {}

    /** The page's files by the name they are served under. */
    private final transient Map<String, Asset> assets = new HashMap<>(Map.of(
            "", asset("text/html", OWN + "index.html"),
            "dashboard.js", asset("text/javascript", OWN + "dashboard.js"),
            "dashboard.css", asset("text/css", OWN + "dashboard.css"),
            "uplot.min.js", asset("text/javascript", UPLOT + "uPlot.iife.min.js"),
            "uplot.min.css", asset("text/css", UPLOT + "uPlot.min.css")));

    /**
     * The dashboard, titled Sluice.
     *
     * @throws IllegalStateException if its files are missing from the classpath (a broken build)
     */
    public SluiceDashboardServlet() {
        this("Sluice");
    }

    /**
     * The dashboard under {@code title}, at the top of the page and in the browser's tab (the environment's name,
     * say).
     *
     * @param title 1 to 100 characters
     * @throws IllegalArgumentException if {@code title} is null, blank or longer
     * @throws IllegalStateException if its files are missing from the classpath (a broken build)
     */
    public SluiceDashboardServlet(String title) {
        if (title == null || title.isBlank() || title.length() > 100) {
            throw new IllegalArgumentException("title must be 1 to 100 characters, was " + title);
        }
        Asset page = assets.get("");
        String escaped = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        String html = new String(page.bytes(), StandardCharsets.UTF_8)
                .replace("<title>Sluice</title>", "<title>" + escaped + "</title>")
                .replace("<h1>Sluice</h1>", "<h1>" + escaped + "</h1>");
        assets.put("", new Asset(page.type(), html.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        if (path == null) {
            // the page's relative addresses need the trailing slash
            String query = request.getQueryString();
            response.sendRedirect(request.getRequestURI() + "/" + (query == null ? "" : "?" + query));
            return;
        }
        Asset asset = assets.get(path.substring(1));
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        if (asset == null) {
            response.sendError(404, "no dashboard file at " + path + " (" + String.join(", ", assets.keySet()) + ")");
            return;
        }
        response.setStatus(200);
        response.setContentType(asset.type());
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("Content-Security-Policy", SECURITY_POLICY);
        response.setContentLength(asset.bytes().length);
        response.getOutputStream().write(asset.bytes());
    }

    private static Asset asset(String type, String resource) {
        try (InputStream in = SluiceDashboardServlet.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("the dashboard's file " + resource + " is not on the classpath");
            }
            return new Asset(type, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("the dashboard's file " + resource + " could not be read", e);
        }
    }

    /** The version of the uPlot WebJar on the classpath, from its Maven properties. */
    private static String uplotVersion() {
        String resource = "/META-INF/maven/org.webjars.npm/uplot/pom.properties";
        try (InputStream in = SluiceDashboardServlet.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("uPlot's WebJar (org.webjars.npm:uplot) is not on the classpath");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("uPlot's WebJar could not be read", e);
        }
    }

    @Override
    public String toString() {
        return "SluiceDashboardServlet[uPlot " + UPLOT + "]";
    }
}
