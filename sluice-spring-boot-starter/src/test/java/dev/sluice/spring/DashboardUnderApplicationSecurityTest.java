package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;

/**
 * Without {@code sluice.dashboard.tokens} the API asks for none, and the application's own security guards the
 * path: here a servlet filter of the application that lets only staff through, as Spring Security would.
 */
@SpringBootTest(
        classes = {TestApplication.class, DashboardUnderApplicationSecurityTest.StaffOnly.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sluice.dashboard.enabled=true")
@DirtiesContext
class DashboardUnderApplicationSecurityTest {
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    private HttpResponse<String> get(String path, boolean staff) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (staff) {
            request.header("X-Staff", "yes");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theApplicationsFilterDecidesWhoReachesTheApiAndTheDashboard() throws Exception {
        for (String path : List.of("/sluice/api/v1/queues", "/sluice/dashboard/", "/sluice/metrics")) {
            HttpResponse<String> stranger = get(path, false);
            assertThat(stranger.statusCode()).as(path).isEqualTo(403);
            assertThat(stranger.body()).as(path).isEqualTo("staff only");
        }

        assertThat(get("/sluice/api/v1/queues", true).body()).contains("\"mail\"");
        assertThat(get("/sluice/dashboard/", true).statusCode()).isEqualTo(200);
        assertThat(get("/sluice/api/v1/session", true).body()).contains("\"scope\":\"admin\"", "\"tokens\":false");
        assertThat(get("/api/hello", false).statusCode())
                .as("the application's own routes, outside the path")
                .isEqualTo(200);
    }

    @Test
    void streamsEventsThroughTheApplicationsFilter() throws Exception {
        HttpResponse<InputStream> events = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/sluice/api/v1/dashboard/events"))
                        .header("X-Staff", "yes")
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))) {
            assertThat(events.statusCode()).isEqualTo(200);
            assertThat(assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            if (line.equals("event: snapshot")) {
                                return true;
                            }
                        }
                        return false;
                    }))
                    .isTrue();
        }
    }

    /** The application's security: only requests with {@code X-Staff: yes} reach {@code /sluice}. */
    @Configuration(proxyBeanMethods = false)
    static class StaffOnly {
        @Bean
        FilterRegistrationBean<Filter> staffOnly() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                if ("yes".equals(((HttpServletRequest) request).getHeader("X-Staff"))) {
                    chain.doFilter(request, response);
                } else {
                    HttpServletResponse refused = (HttpServletResponse) response;
                    refused.setStatus(403);
                    refused.setContentType("text/plain");
                    refused.getWriter().write("staff only");
                }
            });
            registration.addUrlPatterns("/sluice/*");
            return registration;
        }
    }
}
