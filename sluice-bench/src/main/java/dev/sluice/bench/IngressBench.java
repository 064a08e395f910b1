package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.http.IngressDecision;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.IngressRequest;
import dev.sluice.http.IngressRule;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.TokenBucket;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The ingress decision alone, without HTTP: {@code IngressLimiter.check} of one request (one rule, one client, a
 * limit never reached, headers made), against what a Bucket4j filter does per request (a bucket per client in a
 * map, consume, the remaining count as header text). Nanoseconds per request. The {@code shared*} benchmarks run
 * every thread (say {@code -t 32}) on one engine and one client, as a servlet container's request threads share
 * them; the others give each thread its own.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IngressBench {
    /** An engine, the rules and the request, and a Bucket4j map beside them: each thread's own. */
    @State(Scope.Thread)
    public static class PerThread {
        private Sluice sluice;
        private IngressLimiter ingress;
        private IngressLimiter denying;
        private IngressRequest request;
        private final ConcurrentMap<String, Bucket> buckets = new ConcurrentHashMap<>();
        private final Bandwidth bandwidth = Bandwidth.builder()
                .capacity(1_000_000_000L)
                .refillGreedy(1_000_000_000L, Duration.ofSeconds(1))
                .build();

        /** Makes the engine, the rules and the request. */
        @Setup
        public void setUp() {
            sluice = Sluice.inMemory();
            ingress = IngressLimiter.builder(sluice)
                    .rule(IngressRule.named("bench")
                            .limit(sluice.limiter("bench", TokenBucket.of(1_000_000_000L, Duration.ofSeconds(1))))
                            .build())
                    .build();
            denying = IngressLimiter.builder(sluice)
                    .rule(IngressRule.named("denied")
                            .limit(sluice.limiter("denied", FixedWindow.of(1, Duration.ofHours(1))))
                            .build())
                    .build();
            request = IngressRequest.of("GET", "/hello", "127.0.0.1", Map.of("Host", List.of("127.0.0.1")), null);
        }

        /** Closes the engine. */
        @TearDown
        public void tearDown() {
            sluice.close();
        }

        IngressDecision sluice() {
            return ingress.check(request);
        }

        IngressDecision sluiceDenied() {
            return denying.check(request);
        }

        String bucket4j() {
            Bucket bucket = buckets.computeIfAbsent(
                    request.peerAddress(),
                    key -> Bucket.builder().addLimit(bandwidth).build());
            ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
            return probe.isConsumed() ? Long.toString(probe.getRemainingTokens()) : null;
        }
    }

    /** The same, one for every thread. */
    @State(Scope.Benchmark)
    public static class Shared extends PerThread {}

    /**
     * Sluice's decision with its headers.
     *
     * @param setting the thread's setting
     * @return the decision
     */
    @Benchmark
    public IngressDecision sluice(PerThread setting) {
        return setting.sluice();
    }

    /**
     * Sluice's denial: the limit is spent, so the decision carries Retry-After and a problem body.
     *
     * @param setting the thread's setting
     * @return the decision
     */
    @Benchmark
    public IngressDecision sluiceDenied(PerThread setting) {
        return setting.sluiceDenied();
    }

    /**
     * Bucket4j's per-request work in its filter's shape.
     *
     * @param setting the thread's setting
     * @return the header value
     */
    @Benchmark
    public String bucket4j(PerThread setting) {
        return setting.bucket4j();
    }

    /**
     * As {@link #sluice}, every thread on one engine and one client.
     *
     * @param setting the shared setting
     * @return the decision
     */
    @Benchmark
    public IngressDecision sharedSluice(Shared setting) {
        return setting.sluice();
    }

    /**
     * As {@link #bucket4j}, every thread on one map and one bucket.
     *
     * @param setting the shared setting
     * @return the header value
     */
    @Benchmark
    public String sharedBucket4j(Shared setting) {
        return setting.bucket4j();
    }
}
