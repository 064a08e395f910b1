package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.EngineListener;
import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.NamedLimiter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The limiters of an engine as the dashboard shows them: each with its policy and this process's decisions, allowed
 * and denied, in all and per second since the previous snapshot; the most throttled first. It listens to the engine
 * ({@link Sluice#addListener}) from when the API is made until it is closed.
 */
public final class LimiterTally implements EngineListener, AutoCloseable {
    /** The limiters a snapshot carries: the most throttled first. */
    static final int SHOWN = 50;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final Sluice sluice;
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();

    private static final class Tally {
        final NamedLimiter limiter;
        final LongAdder allowed = new LongAdder();
        final LongAdder denied = new LongAdder();
        final LongAdder unavailable = new LongAdder();
        long allowedBefore;
        long deniedBefore;
        long nanosBefore;

        Tally(NamedLimiter limiter) {
            this.limiter = limiter;
        }
    }

    /** Counts the decisions of {@code sluice}'s limiters from now on. */
    public LimiterTally(Sluice sluice) {
        this.sluice = sluice;
        sluice.addListener(this);
    }

    @Override
    public void onLimiterOpened(NamedLimiter limiter) {
        tallies.putIfAbsent(limiter.name(), new Tally(limiter));
    }

    @Override
    public void onAllowed(String limiter, String key, long permits, Decision decision) {
        Tally tally = tallies.get(limiter);
        if (tally != null) {
            tally.allowed.increment();
        }
    }

    @Override
    public void onDenied(String limiter, String key, long permits, Decision decision) {
        Tally tally = tallies.get(limiter);
        if (tally != null) {
            tally.denied.increment();
        }
    }

    @Override
    public void onUnavailable(String limiter, Throwable cause) {
        Tally tally = tallies.get(limiter);
        if (tally != null) {
            tally.unavailable.increment();
        }
    }

    /** The limiters now, with their rates since the previous call; called by one snapshot builder at a time. */
    ArrayNode read(long nowNanos) {
        List<ObjectNode> rows = new ArrayList<>();
        for (Tally tally : tallies.values()) {
            long allowed = tally.allowed.sum();
            long denied = tally.denied.sum();
            double seconds = tally.nanosBefore == 0 ? 0 : (nowNanos - tally.nanosBefore) / 1e9;
            ObjectNode row = JSON.objectNode()
                    .put("name", tally.limiter.name())
                    .put("policy", Policies.name(tally.limiter.policy()));
            row.set("parameters", Policies.describe(tally.limiter.policy()));
            row.put("allowed", allowed)
                    .put("denied", denied)
                    .put("unavailable", tally.unavailable.sum())
                    .put(
                            "allowedPerSecond",
                            seconds <= 0 ? 0 : JobJson.rounded((allowed - tally.allowedBefore) / seconds))
                    .put(
                            "deniedPerSecond",
                            seconds <= 0 ? 0 : JobJson.rounded((denied - tally.deniedBefore) / seconds));
            tally.allowedBefore = allowed;
            tally.deniedBefore = denied;
            tally.nanosBefore = nowNanos;
            rows.add(row);
        }
        rows.sort(Comparator.comparingDouble(
                        (ObjectNode row) -> -row.get("deniedPerSecond").asDouble())
                .thenComparingLong(row -> -row.get("denied").asLong())
                .thenComparing(row -> row.get("name").asText()));
        ArrayNode shown = JSON.arrayNode();
        rows.stream().limit(SHOWN).forEach(shown::add);
        return shown;
    }

    /** Stops listening to the engine. */
    @Override
    public void close() {
        try {
            sluice.removeListener(this);
        } catch (IllegalStateException engineClosed) {
            // a closed engine dropped every listener already
        }
    }
}
