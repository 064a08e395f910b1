package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRule;
import dev.sluice.http.servlet.SluiceRateLimitFilter;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.TokenBucket;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * One endpoint (a 2-byte body) in Jetty, for {@code bench/run-ingress.sh} to load with wrk, under five paths
 * served by one process: {@code /plain/hello} without a filter, {@code /noop/hello} behind a filter that only
 * passes the request on (what any servlet filter costs in Jetty), {@code /fields/hello} behind a filter that only
 * sets the two RateLimit fields Sluice's filter sets here, {@code /sluice/hello} behind Sluice's filter and
 * {@code /bucket4j/hello} behind a Bucket4j filter with the same limit. Each limit keys by the client address
 * ({@code getRemoteAddr}), as both libraries' defaults do. One process for all four, so that they run on the same
 * JIT-compiled Jetty and can be loaded in quick turns.
 *
 * <p>Usage: {@code IngressServer PORT open|exact:N}: {@code open} is a limit no load reaches (a token bucket of
 * 10^9 a second: every request is allowed, the filter's whole cost is measured); {@code exact:N} allows N requests
 * per hour (Sluice: a fixed window; Bucket4j: N tokens refilled once an hour), so exactly N of a short run are
 * answered 200. Prints {@code ready} when it listens, stops on SIGTERM.
 */
public final class IngressServer {
    private IngressServer() {}

    /**
     * Runs the server.
     *
     * @param args port, limit
     * @throws Exception if Jetty cannot start
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: IngressServer PORT open|exact:N");
        }
        int port = Integer.parseInt(args[0]);
        long exact = args[1].startsWith("exact:") ? Long.parseLong(args[1].substring(6)) : 0;
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(
                new ServletHolder(new HttpServlet() {
                    @Override
                    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                        response.setContentType("text/plain");
                        response.getOutputStream().write(OK);
                    }
                }),
                "/*");
        Sluice sluice = Sluice.inMemory();
        context.addFilter(
                new FilterHolder((request, response, chain) -> chain.doFilter(request, response)),
                "/noop/*",
                EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(new FilterHolder(IngressServer::fieldsOnly), "/fields/*", EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(
                new FilterHolder(sluiceFilter(sluice, exact)), "/sluice/*", EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(
                new FilterHolder(new Bucket4jFilter(exact)), "/bucket4j/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(context);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.stop();
            } catch (Exception e) {
                // stopping anyway
            }
            sluice.close();
        }));
        System.out.println("ready " + connector.getLocalPort());
        server.join();
    }

    private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

    /** Sets the two RateLimit fields that Sluice's filter sets in the open regime, and nothing else. */
    private static void fieldsOnly(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletResponse out = (HttpServletResponse) response;
        out.setHeader("RateLimit-Policy", "\"bench\";q=1000000000;w=1");
        out.setHeader("RateLimit", "\"bench\";r=999999999;t=0");
        chain.doFilter(request, response);
    }

    private static Filter sluiceFilter(Sluice sluice, long exact) {
        var limiter = exact > 0
                ? sluice.limiter("bench", FixedWindow.of(exact, Duration.ofHours(1)), LimiterOptions.defaults())
                : sluice.limiter("bench", TokenBucket.of(1_000_000_000L, Duration.ofSeconds(1)));
        return new SluiceRateLimitFilter(IngressLimiter.builder(sluice)
                .rule(IngressRule.named("bench").limit(limiter).build())
                .build());
    }

    /**
     * A per-client Bucket4j filter as its Spring Boot starter builds one (a bucket per key in a concurrent map,
     * a 429 with {@code X-Rate-Limit-Retry-After-Seconds} when empty, {@code X-Rate-Limit-Remaining} when not).
     */
    private static final class Bucket4jFilter implements Filter {
        private final ConcurrentMap<String, Bucket> buckets = new ConcurrentHashMap<>();
        private final Bandwidth bandwidth;

        Bucket4jFilter(long exact) {
            this.bandwidth = exact > 0
                    ? Bandwidth.builder()
                            .capacity(exact)
                            .refillIntervally(exact, Duration.ofHours(1))
                            .build()
                    : Bandwidth.builder()
                            .capacity(1_000_000_000L)
                            .refillGreedy(1_000_000_000L, Duration.ofSeconds(1))
                            .build();
        }

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            HttpServletResponse out = (HttpServletResponse) response;
            Bucket bucket = buckets.computeIfAbsent(
                    request.getRemoteAddr(),
                    key -> Bucket.builder().addLimit(bandwidth).build());
            ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
            if (probe.isConsumed()) {
                out.setHeader("X-Rate-Limit-Remaining", Long.toString(probe.getRemainingTokens()));
                chain.doFilter(request, response);
            } else {
                out.setStatus(429);
                out.setHeader(
                        "X-Rate-Limit-Retry-After-Seconds",
                        Long.toString(Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999) / 1_000_000_000)));
                out.setContentType("application/json");
                out.getOutputStream().write("{\"message\":\"Too many requests\"}".getBytes(StandardCharsets.US_ASCII));
            }
        }
    }
}
