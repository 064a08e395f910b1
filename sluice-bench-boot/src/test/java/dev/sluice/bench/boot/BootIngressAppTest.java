package dev.sluice.bench.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.http.IngressDecision;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRequest;
import dev.sluice.http.IngressRule;
import dev.sluice.limit.TokenBucket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** The benchmark's application in the exact regime (3 an hour): each path is limited by its own filter only. */
class BootIngressAppTest {
    private static ConfigurableApplicationContext context;
    private static int port;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        context = SpringApplication.run(BootIngressApp.class, "--server.port=0", "--bench.limit=exact:3");
        port = ((ServletWebServerApplicationContext) context).getWebServer().getPort();
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    private static List<HttpResponse<String>> get(String prefix, int times) throws Exception {
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/" + prefix + "/hello"))
                    .build();
            responses.add(CLIENT.send(request, HttpResponse.BodyHandlers.ofString()));
        }
        return responses;
    }

    private static List<Integer> statuses(List<HttpResponse<String>> responses) {
        return responses.stream().map(HttpResponse::statusCode).toList();
    }

    @Test
    void unlimitedPathsAlwaysAnswer() throws Exception {
        for (String prefix : List.of("plain", "noop")) {
            var responses = get(prefix, 5);
            assertThat(statuses(responses)).containsOnly(200);
            assertThat(responses.get(0).body()).isEqualTo(BootIngressApp.OK);
        }
    }

    @Test
    void theFieldsPathCarriesTheFieldsThatSluiceSetsInTheOpenRegime() throws Exception {
        var response = get("fields", 1).get(0);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue(BenchLimitProperties.POLICY_FIELD);
        assertThat(response.headers().firstValue("RateLimit")).hasValue(BenchLimitProperties.LIMIT_FIELD);

        try (Sluice sluice = Sluice.inMemory()) {
            IngressDecision open = IngressLimiter.builder(sluice)
                    .rule(IngressRule.named("bench")
                            .limit(sluice.limiter(
                                    "bench", TokenBucket.of(BenchLimitProperties.OPEN, Duration.ofSeconds(1))))
                            .build())
                    .build()
                    .check(IngressRequest.of("GET", "/sluice/hello", "127.0.0.1", Map.of(), null));
            assertThat(open.headers())
                    .containsEntry("RateLimit-Policy", BenchLimitProperties.POLICY_FIELD)
                    .containsEntry("RateLimit", BenchLimitProperties.LIMIT_FIELD);
        }
    }

    @Test
    void sluiceAllowsExactlyTheLimit() throws Exception {
        var responses = get("sluice", 5);
        assertThat(statuses(responses)).containsExactly(200, 200, 200, 429, 429);
        assertThat(responses.get(0).headers().firstValue("RateLimit")).isPresent();
    }

    @Test
    void bucket4jStarterAllowsExactlyTheLimit() throws Exception {
        var responses = get("bucket4j", 5);
        assertThat(statuses(responses)).containsExactly(200, 200, 200, 429, 429);
        assertThat(responses.get(0).headers().firstValue("X-Rate-Limit-Remaining"))
                .hasValue("2");
    }

    @Test
    void regimeIsCheckedAtStart() {
        assertThat(BenchLimitProperties.exact("open")).isZero();
        assertThat(BenchLimitProperties.exact("exact:7")).isEqualTo(7);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BenchLimitProperties.exact("exact:0"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
