package dev.sluice.http.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.ClientAddressResolver;
import dev.sluice.http.EngineFixture;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRule;
import dev.sluice.http.LoopbackRequests;
import dev.sluice.http.servlet.SluiceRateLimitFilter;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.SlidingWindowLog;
import io.javalin.Javalin;
import jakarta.servlet.DispatcherType;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter in a Javalin application (Javalin serves through a Jetty servlet context, where the filter
 * is added), over real HTTP, on every engine.
 */
abstract class JavalinFilterContract extends EngineFixture {
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final AtomicInteger served = new AtomicInteger();
    private final CompletableFuture<String> slowAnswer = new CompletableFuture<>();
    private final CountDownLatch slowEntered = new CountDownLatch(1);
    private Javalin app;

    @AfterEach
    void stopApp() {
        slowAnswer.complete("stopped");
        if (app != null) {
            app.stop();
        }
    }

    private void serve(Function<IngressLimiter.Builder, IngressLimiter.Builder> limits) {
        SluiceRateLimitFilter filter = new SluiceRateLimitFilter(
                limits.apply(IngressLimiter.builder(sluice)).build());
        app = Javalin.create(config -> {
                    config.jetty.modifyServletContextHandler(context -> {
                        FilterHolder holder = new FilterHolder(filter);
                        holder.setAsyncSupported(true);
                        context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
                    });
                    config.routes.get("/api/{item}", ctx -> {
                        served.incrementAndGet();
                        ctx.result("ok");
                    });
                    config.routes.get("/health", ctx -> ctx.result("up"));
                    config.routes.get(
                            "/slow",
                            ctx -> ctx.future(() -> {
                                slowEntered.countDown();
                                return slowAnswer.thenAccept(ctx::result);
                            }));
                })
                .start("127.0.0.1", 0);
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        return send(path, headers).get(30, TimeUnit.SECONDS);
    }

    private CompletableFuture<HttpResponse<String>> send(String path, String... headers) {
        return http.sendAsync(LoopbackRequests.get(app.port(), path, headers), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void limitsARouteAndAnswersBeyondItWithoutReachingTheHandler() throws Exception {
        serve(b -> b.rule(IngressRule.named("api")
                .paths("/api/**")
                .limit("burst", limiter(SlidingWindowLog.of(3, Duration.ofSeconds(60))))
                .build()));

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> allowed = get("/api/orders");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.body()).isEqualTo("ok");
            assertThat(allowed.headers().firstValue("RateLimit-Policy")).hasValue("\"burst\";q=3;w=60");
            assertThat(allowed.headers().firstValue("RateLimit")).hasValue("\"burst\";r=" + (2 - i) + ";t=60");
        }
        HttpResponse<String> limited = get("/api/orders");

        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("Retry-After")).hasValue("60");
        assertThat(limited.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(limited.body()).contains("\"status\":429").contains("burst");
        assertThat(served).hasValue(3);
        assertThat(get("/health").statusCode()).as("a path no rule matches").isEqualTo(200);
    }

    @Test
    void keysByTheClientThatTheTrustedProxyNames() throws Exception {
        serve(b -> b.clientAddresses(ClientAddressResolver.builder()
                        .trustedProxies("127.0.0.1")
                        .build())
                .rule(IngressRule.named("api")
                        .paths("/api/**")
                        .limit(limiter(SlidingWindowLog.of(1, Duration.ofSeconds(60))))
                        .build()));

        assertThat(get("/api/a", "X-Forwarded-For", "203.0.113.9").statusCode()).isEqualTo(200);
        assertThat(get("/api/a", "X-Forwarded-For", "6.6.6.6, 203.0.113.9").statusCode())
                .as("a forged left part does not make another client")
                .isEqualTo(429);
        assertThat(get("/api/a", "X-Forwarded-For", "198.51.100.7").statusCode())
                .isEqualTo(200);
    }

    @Test
    void anAsynchronousHandlerHoldsItsConcurrencyPermitUntilItsResponseIsDone() throws Exception {
        serve(b -> b.rule(IngressRule.named("parallel")
                .limit("parallel", limiter(ConcurrencyLimit.of(1, Duration.ofMinutes(5))))
                .build()));

        CompletableFuture<HttpResponse<String>> slow = send("/slow");
        assertThat(slowEntered.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(get("/health").statusCode())
                .as("the handler returned its future; the response is not done")
                .isEqualTo(429);

        slowAnswer.complete("done");
        assertThat(slow.get(30, TimeUnit.SECONDS).body()).isEqualTo("done");
        assertThat(get("/health").statusCode()).isEqualTo(200);
    }
}
