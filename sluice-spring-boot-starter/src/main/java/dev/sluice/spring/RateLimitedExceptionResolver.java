package dev.sluice.spring;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a {@link RateLimitedException} with {@code 429 Too Many Requests} and {@code Retry-After} in whole
 * seconds, rounded up; the body is the application's error response, as for any status an exception maps to. It
 * comes after Spring MVC's own resolvers, so that an {@code @ExceptionHandler} of the application takes the
 * exception first.
 */
final class RateLimitedExceptionResolver implements HandlerExceptionResolver, Ordered {
    private static final long SECOND = 1_000_000_000L;

    @Override
    public ModelAndView resolveException(
            HttpServletRequest request, HttpServletResponse response, Object handler, Exception failure) {
        if (!(failure instanceof RateLimitedException denied) || response.isCommitted()) {
            return null;
        }
        long nanos = denied.retryAfter().toNanos();
        response.setHeader("Retry-After", Long.toString(Math.max(1, Math.ceilDiv(nanos, SECOND))));
        try {
            response.sendError(429, denied.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ModelAndView();
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
