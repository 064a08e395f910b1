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
 * Whether the engine answers, asked in a way that writes nothing. A Redis engine that has not reached Redis since
 * the application started is DOWN, with why its latest attempt failed. Otherwise it asks with a {@code peek} of the
 * first declared limiter (or, with none declared, of a limiter of its own, {@value #PROBE}), which takes nothing: a
 * peek answered without the engine (its {@code WhenUnavailable} answer), or that throws, is DOWN. Each open queue's
 * counts, read at each check (reading them writes nothing), are the details. Thread-safe.
 */
final class SluiceHealthIndicator extends AbstractHealthIndicator {
    /** The name of the limiter peeked when no limiter is declared. */
    static final String PROBE = "sluice.health";

    private final Sluice sluice;
    private final SluiceRegistry registry;
    private final EngineReach reach;

    SluiceHealthIndicator(Sluice sluice, SluiceRegistry registry) {
        super("Sluice health check failed");
        this.sluice = sluice;
        this.registry = registry;
        this.reach = EngineReach.of(sluice);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("engine", sluice.toString());
        if (!reach.reached()) {
            builder.down().withDetail("redis", "not reached since the application started");
            reach.failure().ifPresent(failure -> builder.withDetail("error", String.valueOf(failure.getMessage())));
            return;
        }
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

    private Map<String, Map<String, Long>> counts() {
        Map<String, Map<String, Long>> read = new LinkedHashMap<>();
        registry.queues().forEach((name, queue) -> {
            JobCounts jobs = queue.counts();
            Map<String, Long> shown = new LinkedHashMap<>();
            shown.put("waiting", jobs.waiting());
            shown.put("active", jobs.active());
            shown.put("delayed", jobs.delayed());
            read.put(name, shown);
        });
        return read;
    }
}
