package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The Actuator endpoint {@code sluice}: the engine, each limiter of the {@link SluiceRegistry} with its kind ({@code
 * rate} or {@code concurrency}), its policy and its answer while the engine is unavailable, and each queue with its limits, whether it is paused, and its jobs
 * in each state read when asked. It only reads.
 */
@Endpoint(id = "sluice")
final class SluiceEndpoint {
    private final Sluice sluice;
    private final SluiceRegistry registry;

    SluiceEndpoint(Sluice sluice, SluiceRegistry registry) {
        this.sluice = sluice;
        this.registry = registry;
    }

    /** The engine, the limiters and the queues, by name. */
    @ReadOperation
    public Map<String, Object> state() {
        Map<String, Object> limiters = new LinkedHashMap<>();
        registry.limiters().forEach((name, limiter) -> limiters.put(name, limiter(limiter)));
        Map<String, Object> queues = new LinkedHashMap<>();
        Map<String, JobQueue<?>> open = registry.queues();
        for (String name : registry.declaredQueues()) {
            JobQueue<?> queue = open.get(name);
            queues.put(name, queue == null ? NOT_OPEN : queue(queue));
        }
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("engine", sluice.toString());
        state.put("limiters", limiters);
        state.put("queues", queues);
        return state;
    }

    private static Map<String, Object> limiter(NamedLimiter limiter) {
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("kind", limiter instanceof RateLimiter ? "rate" : "concurrency");
        shown.put("policy", limiter.policy().toString());
        shown.put("limit", limiter.policy().limit());
        shown.put("whenUnavailable", asWritten(limiter.options().whenUnavailable()));
        return shown;
    }

    /** As {@code when-unavailable} is written in properties. */
    private static String asWritten(WhenUnavailable answer) {
        return switch (answer.action()) {
            case DENY -> "fail-closed";
            case ALLOW -> "fail-open";
            case FALL_BACK -> "fall-back:" + answer.share();
        };
    }

    /** A declared queue the registry has not opened: the engine has not reached Redis since the start. */
    private static final Map<String, Object> NOT_OPEN = Map.of("open", false, "reason", SluiceRegistry.NOT_REACHED);

    private static Map<String, Object> queue(JobQueue<?> queue) {
        QueueOptions options = queue.options();
        JobCounts counts = queue.counts();
        Map<String, Object> jobs = new LinkedHashMap<>();
        jobs.put("waiting", counts.waiting());
        jobs.put("delayed", counts.delayed());
        jobs.put("active", counts.active());
        jobs.put("completed", counts.completed());
        jobs.put("failed", counts.failed());
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("open", true);
        shown.put("paused", queue.isPaused());
        shown.put("rate", options.rate() == null ? null : options.rate().toString());
        shown.put("concurrency", options.concurrency() == Integer.MAX_VALUE ? null : options.concurrency());
        shown.put("maxQueued", options.maxQueued());
        shown.put("jobs", jobs);
        return shown;
    }
}
