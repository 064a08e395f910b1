package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.queue.JobCounts;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the engine answers, asked in a way that writes nothing: a {@code peek} of the first declared limiter (or,
 * with none declared, of a limiter of its own, {@value #PROBE}), which takes nothing. A peek answered without the
 * engine (its {@code WhenUnavailable} answer), or that throws, is DOWN. Each declared queue's counts are the
 * details; they are read at most once per {@link #COUNTS_INTERVAL} of the engine's clock, and only while the
 * engine answers, since on Redis reading them runs the queue's housekeeping, which may write. Thread-safe.
 */
final class SluiceHealthIndicator extends AbstractHealthIndicator {
    /** The name of the limiter peeked when no limiter is declared. */
    static final String PROBE = "sluice.health";
    /** How long the queues' counts are shown before they are read again. */
    static final Duration COUNTS_INTERVAL = Duration.ofSeconds(10);

    private final Sluice sluice;
    private final SluiceRegistry registry;
    private Map<String, Map<String, Long>> counts;
    private long countsReadAt;

    SluiceHealthIndicator(Sluice sluice, SluiceRegistry registry) {
        super("Sluice health check failed");
        this.sluice = sluice;
        this.registry = registry;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("engine", sluice.toString());
        NamedLimiter limiter = registry.limiters().isEmpty()
                ? sluice.limiter(PROBE, FixedWindow.of(1, Duration.ofSeconds(1)))
                : registry.limiters().values().iterator().next();
        Decision probe = limiter.peek("health", 1);
        if (probe.basis() != Decision.Basis.LIMIT) {
            builder.down().withDetail("limiter", limiter.name()).withDetail("basis", probe.basis());
            return;
        }
        builder.up();
        if (!registry.queues().isEmpty()) {
            builder.withDetail("queues", counts());
        }
    }

    private synchronized Map<String, Map<String, Long>> counts() {
        long now = sluice.clock().nanos();
        if (counts == null || now - countsReadAt >= COUNTS_INTERVAL.toNanos()) {
            Map<String, Map<String, Long>> read = new LinkedHashMap<>();
            registry.queues().forEach((name, queue) -> {
                JobCounts jobs = queue.counts();
                Map<String, Long> shown = new LinkedHashMap<>();
                shown.put("waiting", jobs.waiting());
                shown.put("active", jobs.active());
                shown.put("delayed", jobs.delayed());
                read.put(name, shown);
            });
            counts = read;
            countsReadAt = now;
        }
        return counts;
    }
}
