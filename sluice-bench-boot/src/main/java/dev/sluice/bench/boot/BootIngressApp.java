package dev.sluice.bench.boot;

import dev.sluice.Sluice;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRule;
import dev.sluice.http.servlet.SluiceRateLimitFilter;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.TokenBucket;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Duration;
import javax.cache.configuration.MutableConfiguration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * One endpoint (a 2-byte body) in Spring Boot on Tomcat, for {@code bench/run-ingress-boot.sh} to load with wrk,
 * under five paths of one process: {@code /plain/hello} without a limit, {@code /noop/hello} behind a filter that
 * only passes the request on (what one more servlet filter costs here), {@code /fields/hello} behind a filter that
 * only sets the two RateLimit fields that Sluice's filter sets here, with the same values (what the fields cost
 * Tomcat and Spring MVC, apart from deciding), {@code /sluice/hello} behind Sluice's
 * {@link SluiceRateLimitFilter} (a {@link FilterRegistrationBean} on {@code /sluice/*}) and {@code /bucket4j/hello}
 * behind the Bucket4j Spring Boot starter's own filter (configured in properties: {@code application.yml} and
 * {@link BenchLimitProperties}). Both limits key by the client address.
 *
 * <p>The property {@code bench.limit} chooses the regime: {@code open} (the default) is a token bucket of 10^9 a
 * second on both, which no load reaches (every request is allowed, so the filter's whole cost is measured);
 * {@code exact:N} allows N requests per hour (Sluice: a fixed window; Bucket4j: N tokens refilled once an hour,
 * intervally), so exactly N of a short run are answered 200. Prints {@code ready PORT} when it listens.
 */
@SpringBootApplication
@EnableCaching // Boot configures the JCache CacheManager, which the Bucket4j starter needs, only with caching on
public class BootIngressApp {
    /** The endpoint's body. */
    static final String OK = "ok";

    /**
     * Runs the application.
     *
     * @param args Spring Boot's arguments, e.g. {@code --server.port=8080 --bench.limit=exact:5000}
     */
    public static void main(String[] args) {
        SpringApplication.run(BootIngressApp.class, args);
    }

    /** The endpoint, under every path prefix. */
    @RestController
    static class Hello {
        @GetMapping(
                path = {"/plain/hello", "/noop/hello", "/fields/hello", "/sluice/hello", "/bucket4j/hello"},
                produces = "text/plain")
        String hello() {
            return OK;
        }
    }

    @Bean(destroyMethod = "close")
    Sluice sluice() {
        return Sluice.inMemory();
    }

    @Bean
    FilterRegistrationBean<SluiceRateLimitFilter> sluiceFilter(
            Sluice sluice, @Value("${bench.limit:open}") String limit) {
        long exact = BenchLimitProperties.exact(limit);
        var limiter = exact > 0
                ? sluice.limiter("bench", FixedWindow.of(exact, Duration.ofHours(1)), LimiterOptions.defaults())
                : sluice.limiter("bench", TokenBucket.of(BenchLimitProperties.OPEN, Duration.ofSeconds(1)));
        var filter = new SluiceRateLimitFilter(IngressLimiter.builder(sluice)
                .rule(IngressRule.named("bench").limit(limiter).build())
                .build());
        var registration = new FilterRegistrationBean<>(filter);
        registration.addUrlPatterns("/sluice/*");
        // where the Bucket4j starter puts its filter by default
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    @Bean
    FilterRegistrationBean<Filter> fieldsFilter() {
        Filter fields = (request, response, chain) -> {
            HttpServletResponse out = (HttpServletResponse) response;
            out.setHeader("RateLimit-Policy", BenchLimitProperties.POLICY_FIELD);
            out.setHeader("RateLimit", BenchLimitProperties.LIMIT_FIELD);
            chain.doFilter(request, response);
        };
        var registration = new FilterRegistrationBean<>(fields);
        registration.addUrlPatterns("/fields/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    @Bean
    FilterRegistrationBean<Filter> noopFilter() {
        Filter noop = (request, response, chain) -> chain.doFilter(request, response);
        var registration = new FilterRegistrationBean<>(noop);
        registration.addUrlPatterns("/noop/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }

    /**
     * The configuration of the caches that {@code spring.cache.cache-names} creates (Bucket4j's {@code buckets}):
     * by reference. JCache's default, by value, would copy (serialize) the bucket's state on every request, which
     * is not the starter's cost but the cache's.
     *
     * @return the caches' configuration
     */
    @Bean
    MutableConfiguration<Object, Object> jcacheConfiguration() {
        return new MutableConfiguration<>().setStoreByValue(false);
    }

    @Bean
    ApplicationListener<WebServerInitializedEvent> announceReady() {
        return event -> System.out.println("ready " + event.getWebServer().getPort());
    }
}
