package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.JobCounts;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Asks the engine something cheap: each declared queue's counts (which are the details), or, with no queue
 * declared, a {@code peek} of the first declared limiter, which takes nothing. A call that throws, or a peek
 * answered without the engine (its {@code WhenUnavailable} answer), is DOWN.
 */
final class SluiceHealthIndicator extends AbstractHealthIndicator {
    private final Sluice sluice;
    private final SluiceRegistry registry;

    SluiceHealthIndicator(Sluice sluice, SluiceRegistry registry) {
        super("Sluice health check failed");
        this.sluice = sluice;
        this.registry = registry;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("engine", sluice.toString());
        Map<String, Map<String, Long>> backlog = new LinkedHashMap<>();
        registry.queues().forEach((name, queue) -> {
            JobCounts counts = queue.counts();
            Map<String, Long> jobs = new LinkedHashMap<>();
            jobs.put("waiting", counts.waiting());
            jobs.put("active", counts.active());
            jobs.put("delayed", counts.delayed());
            backlog.put(name, jobs);
        });
        if (backlog.isEmpty() && !registry.limiters().isEmpty()) {
            RateLimiter limiter = registry.limiters().values().iterator().next();
            Decision probe = limiter.peek("health", 1);
            if (probe.basis() != Decision.Basis.LIMIT) {
                builder.down().withDetail("limiter", limiter.name()).withDetail("basis", probe.basis());
                return;
            }
        }
        builder.up();
        if (!backlog.isEmpty()) {
            builder.withDetail("queues", backlog);
        }
    }
}
