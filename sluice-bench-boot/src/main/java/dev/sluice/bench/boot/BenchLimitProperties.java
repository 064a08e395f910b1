package dev.sluice.bench.boot;

import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Turns {@code bench.limit} ({@code open} or {@code exact:N}) into the properties of the Bucket4j starter's one
 * filter, {@code bucket4j.filters[0]}: on {@code /bucket4j/.*}, the cache {@code buckets}, keyed by
 * {@code getRemoteAddr()}, with one bandwidth: {@code open} is a bucket of 10^9 tokens refilled greedily each
 * second, {@code exact:N} one of N tokens refilled intervally each hour. All of the filter's properties are set
 * here, in one property source, because Spring Boot binds a list from one source only.
 */
public final class BenchLimitProperties implements EnvironmentPostProcessor {
    /** The open regime's capacity a second: no load on this machine comes near it. */
    static final long OPEN = 1_000_000_000L;

    /** The {@code RateLimit-Policy} field that Sluice's filter sets in the open regime, for the fields-only path. */
    static final String POLICY_FIELD = "\"bench\";q=1000000000;w=1";

    /** The {@code RateLimit} field that Sluice's filter sets in the open regime (to within a few permits left). */
    static final String LIMIT_FIELD = "\"bench\";r=999999999;t=0";

    private static final String FILTER = "bucket4j.filters[0].";
    private static final String BANDWIDTH = FILTER + "rate-limits[0].bandwidths[0].";

    /**
     * The limit of an hour that {@code exact:N} asks for.
     *
     * @param limit {@code open} or {@code exact:N}
     * @return N, or 0 for {@code open}
     */
    static long exact(String limit) {
        if ("open".equals(limit)) {
            return 0;
        }
        if (limit.startsWith("exact:")) {
            long n = Long.parseLong(limit.substring("exact:".length()));
            if (n > 0) {
                return n;
            }
        }
        throw new IllegalArgumentException("bench.limit must be open or exact:N with N > 0, not " + limit);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        long exact = exact(environment.getProperty("bench.limit", "open"));
        Map<String, Object> bandwidth = exact > 0
                ? Map.of(
                        BANDWIDTH + "capacity",
                        exact,
                        BANDWIDTH + "time",
                        1,
                        BANDWIDTH + "unit",
                        "hours",
                        BANDWIDTH + "refill-speed",
                        "interval")
                : Map.of(
                        BANDWIDTH + "capacity",
                        OPEN,
                        BANDWIDTH + "time",
                        1,
                        BANDWIDTH + "unit",
                        "seconds",
                        BANDWIDTH + "refill-speed",
                        "greedy");
        Map<String, Object> filter = new HashMap<>(bandwidth);
        filter.put(FILTER + "cache-name", "buckets");
        filter.put(FILTER + "url", "/bucket4j/.*");
        filter.put(FILTER + "rate-limits[0].cache-key", "getRemoteAddr()");
        environment.getPropertySources().addLast(new MapPropertySource("bench-limit", filter));
    }
}
