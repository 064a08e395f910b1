package dev.sluice.http.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.ClientAddressResolver;
import dev.sluice.http.EngineFixture;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRule;
import dev.sluice.http.LoopbackRequests;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.SlidingWindowLog;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The filter in a real servlet container (Jetty) over real HTTP, held to the same behaviour on every engine. */
abstract class SluiceRateLimitFilterContract extends EngineFixture {
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final AtomicInteger served = new AtomicInteger();
    private volatile CountDownLatch slowGate = new CountDownLatch(0);
    private final CountDownLatch slowEntered = new CountDownLatch(1);
    private final List<AsyncContext> asyncInFlight = new java.util.concurrent.CopyOnWriteArrayList<>();
    private Server server;
    private int port;

    @AfterEach
    void stopServer() throws Exception {
        slowGate.countDown();
        if (server != null) {
            server.stop();
        }
    }

    private void serve(Function<IngressLimiter.Builder, IngressLimiter.Builder> limits) throws Exception {
        IngressLimiter ingress = limits.apply(IngressLimiter.builder(sluice)).build();
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/app");
        ServletHolder async = new ServletHolder(new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response) {
                AsyncContext started = request.startAsync();
                asyncInFlight.add(started);
                slowEntered.countDown();
            }
        });
        async.setAsyncSupported(true);
        context.addServlet(async, "/async/*");
        context.addServlet(
                new ServletHolder(new HttpServlet() {
                    @Override
                    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
                        doGet(request, response);
                    }

                    @Override
                    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                        if (request.getPathInfo() != null
                                && request.getPathInfo().startsWith("/slow")) {
                            slowEntered.countDown();
                            try {
                                slowGate.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        served.incrementAndGet();
                        response.setContentType("text/plain");
                        response.getWriter().write("ok");
                    }
                }),
                "/*");
        FilterHolder filter = new FilterHolder(new SluiceRateLimitFilter(ingress));
        filter.setAsyncSupported(true);
        context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(context);
        server.start();
        port = connector.getLocalPort();
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        return http.send(LoopbackRequests.get(port, "/app" + path, headers), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersWithinTheLimitWithItsFieldsAndBeyondItWith429AndAProblem() throws Exception {
        serve(b -> b.rule(IngressRule.named("api")
                .paths("/api/**")
                .limit("burst", limiter(SlidingWindowLog.of(5, Duration.ofSeconds(60))))
                .build()));

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            HttpResponse<String> response = get("/api/orders");
            statuses.add(response.statusCode());
            if (i == 0) {
                assertThat(response.body()).isEqualTo("ok");
                assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"burst\";q=5;w=60");
                assertThat(response.headers().firstValue("RateLimit")).hasValue("\"burst\";r=4;t=60");
            }
            if (i == 7) {
                assertThat(response.headers().firstValue("Retry-After")).hasValue("60");
                assertThat(response.headers().firstValue("RateLimit")).hasValue("\"burst\";r=0;t=60");
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(response.headers().firstValueAsLong("Content-Length"))
                        .hasValue(response.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
                assertThat(response.body())
                        .contains("\"status\":429")
                        .contains("\"policy\":\"burst\"")
                        .contains("\"retryAfter\":60");
            }
        }

        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429, 429, 429);
        assertThat(served).as("denied requests never reach the application").hasValue(5);
        HttpResponse<String> elsewhere = get("/health");
        assertThat(elsewhere.statusCode()).isEqualTo(200);
        assertThat(elsewhere.headers().firstValue("RateLimit")).isEmpty();
    }

    @Test
    void limitsOnlyTheMethodsOfTheRule() throws Exception {
        serve(b -> b.rule(IngressRule.named("writes")
                .methods("POST")
                .limit(limiter(FixedWindow.of(1, Duration.ofMinutes(1))))
                .build()));

        HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/app/items"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
        assertThat(http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        assertThat(http.send(post, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(429);
        HttpResponse<String> read = get("/items");
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.headers().firstValue("RateLimit-Policy")).isEmpty();
    }

    @Test
    void anAsynchronousResponseHoldsItsConcurrencyPermitUntilItCompletes() throws Exception {
        serve(b -> b.rule(IngressRule.named("streams")
                .limit("parallel", limiter(ConcurrencyLimit.of(1, Duration.ofMinutes(5))))
                .build()));

        CompletableFuture<HttpResponse<String>> streaming = http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/app/async/1"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(slowEntered.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(get("/fast").statusCode())
                .as("the servlet returned, the response is not done")
                .isEqualTo(429);

        AsyncContext context = asyncInFlight.get(0);
        context.getResponse().getWriter().write("done");
        context.complete();
        assertThat(streaming.get(30, TimeUnit.SECONDS).body()).isEqualTo("done");
        assertThat(get("/fast").statusCode()).isEqualTo(200);
    }

    @Test
    void exactlyTheLimitPassesUnderConcurrentRequests() throws Exception {
        serve(b -> b.rule(IngressRule.named("api")
                .limit(limiter(FixedWindow.of(50, Duration.ofMinutes(1))))
                .build()));

        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            responses.add(http.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/app/x"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        long ok = 0;
        long limited = 0;
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            int status = response.get(60, TimeUnit.SECONDS).statusCode();
            ok += status == 200 ? 1 : 0;
            limited += status == 429 ? 1 : 0;
        }
        assertThat(ok).isEqualTo(50);
        assertThat(limited).isEqualTo(150);
    }

    @Test
    void keysByTheClientBehindATrustedProxyAndIgnoresWhatTheClientForged() throws Exception {
        serve(b -> b.clientAddresses(ClientAddressResolver.builder()
                        .trustedProxies("127.0.0.1")
                        .build())
                .rule(IngressRule.named("api")
                        .limit(limiter(FixedWindow.of(2, Duration.ofMinutes(1))))
                        .build()));

        assertThat(get("/x", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(200);
        assertThat(get("/x", "X-Forwarded-For", "1.1.1.1, 203.0.113.9").statusCode())
                .isEqualTo(200);
        assertThat(get("/x", "X-Forwarded-For", "9.9.9.9, 203.0.113.9").statusCode())
                .as("a forged left part does not make another client")
                .isEqualTo(429);
        assertThat(get("/x", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
        assertThat(get("/x").statusCode())
                .as("the proxy itself is a client too")
                .isEqualTo(200);
    }

    @Test
    void readsForwardedFromATrustedProxyAndGroupsIpv6ClientsBySlash64() throws Exception {
        serve(b -> b.clientAddresses(ClientAddressResolver.builder()
                        .trustedProxies("127.0.0.1")
                        .forwardedHeader(ClientAddressResolver.ForwardedHeader.FORWARDED)
                        .build())
                .rule(IngressRule.named("api")
                        .limit(limiter(FixedWindow.of(1, Duration.ofMinutes(1))))
                        .build()));

        assertThat(get("/x", "Forwarded", "for=\"[2001:db8:cafe::17]:4711\";proto=https")
                        .statusCode())
                .isEqualTo(200);
        assertThat(get("/x", "Forwarded", "for=\"[2001:db8:cafe::99]\"").statusCode())
                .as("another address of the same /64 is the same client")
                .isEqualTo(429);
        assertThat(get("/x", "Forwarded", "for=\"[2001:db8:cafe:1::17]\"").statusCode())
                .isEqualTo(200);
        assertThat(get("/x", "Forwarded", "for=_hidden7").statusCode())
                .as("an obfuscated client")
                .isEqualTo(200);
        assertThat(get("/x", "Forwarded", "for=_hidden7").statusCode()).isEqualTo(429);
        assertThat(get("/x", "Forwarded", "for=198.51.100.1, for=\"[2001:db8:cafe::5]\"")
                        .statusCode())
                .as("what the client wrote to the left changes nothing")
                .isEqualTo(429);
    }

    @Test
    void readsACdnHeaderOnlyWhenThePeerIsInTheCdnsRanges() throws Exception {
        serve(b -> b.clientAddresses(ClientAddressResolver.builder()
                        .cdn("CF-Connecting-IP", "127.0.0.0/8")
                        .build())
                .rule(IngressRule.named("cdn")
                        .paths("/cdn/**")
                        .limit(limiter(FixedWindow.of(1, Duration.ofMinutes(1))))
                        .build()));

        assertThat(get("/cdn/a", "CF-Connecting-IP", "203.0.113.1").statusCode())
                .isEqualTo(200);
        assertThat(get("/cdn/a", "CF-Connecting-IP", "203.0.113.2").statusCode())
                .isEqualTo(200);
        assertThat(get("/cdn/a", "CF-Connecting-IP", "203.0.113.1").statusCode())
                .isEqualTo(429);
    }

    @Test
    void ignoresACdnHeaderFromAPeerOutsideTheCdnsRanges() throws Exception {
        serve(b -> b.clientAddresses(ClientAddressResolver.builder()
                        .cdn("CF-Connecting-IP", "203.0.113.0/24")
                        .build())
                .rule(IngressRule.named("cdn")
                        .limit(limiter(FixedWindow.of(1, Duration.ofMinutes(1))))
                        .build()));

        assertThat(get("/a", "CF-Connecting-IP", "198.51.100.1").statusCode()).isEqualTo(200);
        assertThat(get("/a", "CF-Connecting-IP", "198.51.100.2").statusCode())
                .as("keyed by the peer: the header is not believed from it")
                .isEqualTo(429);
    }

    @Test
    void withoutTrustedProxiesForwardingHeadersAreIgnored() throws Exception {
        serve(b -> b.rule(IngressRule.named("api")
                .limit(limiter(FixedWindow.of(2, Duration.ofMinutes(1))))
                .build()));

        assertThat(get("/x", "X-Forwarded-For", "203.0.113.1").statusCode()).isEqualTo(200);
        assertThat(get("/x", "X-Forwarded-For", "203.0.113.2").statusCode()).isEqualTo(200);
        assertThat(get("/x", "X-Forwarded-For", "203.0.113.3", "Forwarded", "for=203.0.113.4")
                        .statusCode())
                .isEqualTo(429);
    }

    @Test
    void aConcurrencyLimitIsHeldWhileTheResponseIsMadeAndGivenBackAfter() throws Exception {
        serve(b -> b.rule(IngressRule.named("reports")
                .limit("parallel", limiter(ConcurrencyLimit.of(1, Duration.ofMinutes(5))))
                .build()));
        slowGate = new CountDownLatch(1);

        CompletableFuture<HttpResponse<String>> slow = http.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/app/slow"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(slowEntered.await(30, TimeUnit.SECONDS)).isTrue();
        HttpResponse<String> second = get("/fast");
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.headers().firstValue("RateLimit")).hasValue("\"parallel\";r=0;t=300");
        slowGate.countDown();
        assertThat(slow.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

        for (int i = 0; i < 5; i++) {
            assertThat(get("/fast").statusCode())
                    .as("the permit came back after each response")
                    .isEqualTo(200);
        }
    }
}
