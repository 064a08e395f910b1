package dev.sluice.http.servlet;

import dev.sluice.http.IngressDecision;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRequest;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A Jakarta Servlet filter that applies an {@link IngressLimiter}: a request within its rule's limits goes on
 * with the RateLimit fields on its response; one over a limit is answered 429 (503 while a fail-closed limit
 * cannot be checked) with {@code Retry-After} and an RFC 9457 problem body, and never reaches the
 * application. Register it for every path (Spring: a {@code FilterRegistrationBean}; Jetty: {@code
 * ServletContextHandler.addFilter}; Tomcat: {@code FilterDef}), before the application's own filters unless
 * rules key by principal, in which case after authentication.
 *
 * <p>A concurrency limit's permit is held until the response is done, asynchronous requests included. Paths are
 * matched on the servlet path and path info, which the container has decoded and normalised. Thread-safe.
 */
public final class SluiceRateLimitFilter implements Filter {
    private final IngressLimiter limiter;

    /**
     * A filter for {@code limiter}.
     *
     * @param limiter the ingress limits
     * @throws IllegalArgumentException if the limiter is null
     */
    public SluiceRateLimitFilter(IngressLimiter limiter) {
        if (limiter == null) {
            throw new IllegalArgumentException("ingress limiter of the filter must not be null");
        }
        this.limiter = limiter;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)) {
            chain.doFilter(request, response);
            return;
        }
        IngressDecision decision = limiter.check(new ServletIngressRequest(http));
        decision.headers().forEach(out::setHeader);
        if (!decision.allowed()) {
            out.setStatus(decision.status());
            out.setContentType(IngressDecision.PROBLEM_MEDIA_TYPE);
            byte[] body = decision.problem().getBytes(StandardCharsets.UTF_8);
            out.setContentLength(body.length);
            out.getOutputStream().write(body);
            return;
        }
        boolean async = false;
        try {
            chain.doFilter(request, response);
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener(new ReleaseOnCompletion(decision));
                async = true;
            }
        } finally {
            if (!async) {
                decision.release();
            }
        }
    }

    /** Releases a request's permits when its asynchronous processing ends. */
    private record ReleaseOnCompletion(IngressDecision decision) implements AsyncListener {
        @Override
        public void onComplete(AsyncEvent event) {
            decision.release();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            decision.release();
        }

        @Override
        public void onError(AsyncEvent event) {
            decision.release();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }

    /** A servlet request as the ingress limits read it. */
    private record ServletIngressRequest(HttpServletRequest request) implements IngressRequest {
        @Override
        public String method() {
            return request.getMethod();
        }

        @Override
        public String path() {
            String servletPath = request.getServletPath();
            String info = request.getPathInfo();
            if (servletPath == null || servletPath.isEmpty()) {
                return info == null || info.isEmpty() ? "/" : info;
            }
            return info == null ? servletPath : servletPath + info;
        }

        @Override
        public List<String> headers(String name) {
            var values = request.getHeaders(name);
            return values == null
                    ? List.of()
                    : Collections.list(values).stream().toList();
        }

        @Override
        public String peerAddress() {
            return request.getRemoteAddr();
        }

        @Override
        public Optional<String> principal() {
            Principal principal = request.getUserPrincipal();
            return principal == null ? Optional.empty() : Optional.ofNullable(principal.getName());
        }
    }
}
