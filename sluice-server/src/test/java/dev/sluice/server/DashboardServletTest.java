package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The dashboard's page and files as SluiceServer serves them (they read no engine, so one engine serves). */
class DashboardServletTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private Sluice sluice;
    private SluiceServer server;

    @BeforeEach
    void start() {
        sluice = Sluice.inMemory();
        server = SluiceServer.builder(sluice).port(0).start();
    }

    @AfterEach
    void stop() {
        server.close();
        sluice.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(server.uri().resolve(path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theRootAndTheDashboardWithoutItsSlashLeadToThePage() throws Exception {
        HttpResponse<String> root = get("/");
        HttpResponse<String> noSlash = get("/dashboard?x=1");

        assertThat(root.statusCode()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location").orElseThrow()).endsWith("/dashboard/");
        assertThat(noSlash.statusCode()).isEqualTo(302);
        assertThat(noSlash.headers().firstValue("Location").orElseThrow()).endsWith("/dashboard/?x=1");
    }

    @Test
    void servesThePageItsScriptAndUplotFromTheClasspathUnderAStrictPolicy() throws Exception {
        HttpResponse<String> page = get("/dashboard/");
        HttpResponse<String> script = get("/dashboard/dashboard.js");
        HttpResponse<String> uplot = get("/dashboard/uplot.min.js");
        HttpResponse<String> styles = get("/dashboard/uplot.min.css");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
        assertThat(page.body())
                .contains("src=\"dashboard.js\"", "src=\"uplot.min.js\"")
                .doesNotContain("http://", "https://");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("default-src 'self'", "script-src 'self'", "frame-ancestors 'none'");
        assertThat(script.body()).contains("'../api/v1/'", "EventSource", "visibilitychange");
        assertThat(uplot.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/javascript");
        assertThat(uplot.body()).contains("uPlot");
        assertThat(styles.body()).contains(".uplot");
    }

    @Test
    void aFileItDoesNotHaveIsNotFound() throws Exception {
        HttpResponse<String> missing = get("/dashboard/secrets.txt");

        assertThat(missing.statusCode()).isEqualTo(404);
    }

    @Test
    void takesItsTitleOrIsNotServedAtAll() throws Exception {
        server.close();
        server = SluiceServer.builder(sluice)
                .dashboard(true, "Staging <eu>")
                .port(0)
                .start();
        HttpResponse<String> titled = get("/dashboard/");
        server.close();
        server = SluiceServer.builder(sluice).dashboard(false, "Sluice").port(0).start();
        HttpResponse<String> none = get("/dashboard/");
        HttpResponse<String> api = get("/api/v1/queues");

        assertThat(titled.body()).contains("<title>Staging &lt;eu&gt;</title>", "<h1>Staging &lt;eu&gt;</h1>");
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(api.statusCode()).isEqualTo(200);
    }
}
