package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An open dashboard does not hold the application's shutdown: Spring Boot's graceful shutdown waits for requests in
 * progress, up to {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s), and a dashboard's event stream never
 * ends by itself.
 */
class DashboardShutdownTest {
    @Test
    void anOpenDashboardsEventStreamEndsWhenTheApplicationStopsWithoutHoldingItsShutdown() throws Exception {
        ConfigurableApplicationContext application = new SpringApplicationBuilder(TestApplication.class)
                .properties("server.port=0", "sluice.dashboard.enabled=true", "server.shutdown=graceful")
                .run();
        HttpResponse<InputStream> events;
        try {
            String port = application.getEnvironment().getProperty("local.server.port");
            events = HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .build()
                    .send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + port + "/sluice/api/v1/dashboard/events"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofInputStream());
            assertThat(events.statusCode()).isEqualTo(200);
        } catch (Exception | AssertionError e) {
            application.close();
            throw e;
        }
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))) {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                String line = lines.readLine();
                while (line != null && !line.equals("event: snapshot")) {
                    line = lines.readLine();
                }
                assertThat(line).as("the stream's first snapshot").isNotNull();
            });

            long start = System.nanoTime();
            application.close();
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(took).as("the application's shutdown").isLessThan(Duration.ofSeconds(10));
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                while (lines.readLine() != null) {
                    // the rest of what the stream sent before it ended
                }
            });
        }
    }
}
