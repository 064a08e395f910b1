package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobQueue;
import dev.sluice.server.internal.Problem.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code PUT /api/v1/queues/{q}/rate}: changes the rate of a queue or of one group, for good or until {@code
 * revertAfterMs} has passed, when the rate it replaced comes back (unless another change came since). A change with an
 * expiry that is still pending when the server stops is reverted then, so that no temporary change outlives the
 * server that would have ended it.
 */
public final class RateChanges implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RateChanges.class);
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final long MOST_REVERT_MS = Duration.ofDays(7).toMillis();

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "sluice-rate-reverts");
        thread.setDaemon(true);
        return thread;
    });

    /** The pending reverts, by queue and group ("" for the queue itself). */
    private final Map<String, Revert> pending = new ConcurrentHashMap<>();

    private record Revert(ScheduledFuture<?> future, JobQueue<?> queue, String group, Runnable restore) {}

    /** Applies the change {@code body} describes to {@code queue}; the answer says what it was and what it is. */
    public ObjectNode change(JobQueue<?> queue, JsonNode body) {
        String group;
        RatePolicy rate;
        long revertAfterMs;
        try {
            ConfigNode node = ConfigNode.root("the body", body);
            node.only("rate", "group", "revertAfterMs");
            JsonNode rawRate = body.get("rate");
            if (rawRate == null) {
                throw new Problem(Kind.INVALID_REQUEST, "rate is required: a rate policy, or null for none");
            }
            group = node.get("group").text("a group's name", null);
            rate = rawRate.isNull() ? null : Policies.rate(node.get("rate"));
            revertAfterMs = node.get("revertAfterMs").whole(1, MOST_REVERT_MS, 0);
        } catch (ConfigNode.Invalid invalid) {
            throw new Problem(Kind.INVALID_REQUEST, invalid.getMessage());
        }
        String key = queue.name() + "\u0000" + (group == null ? "" : group);
        ObjectNode answer = JSON.objectNode().put("queue", queue.name()).put("group", group);
        Runnable restore;
        try {
            restore = group == null ? changeQueue(queue, rate, answer) : changeGroup(queue, group, rate, answer);
        } catch (IllegalArgumentException refused) {
            throw new Problem(Kind.INVALID_REQUEST, refused.getMessage());
        }
        Revert earlier = pending.remove(key);
        if (earlier != null) {
            earlier.future.cancel(false);
        }
        if (revertAfterMs > 0) {
            Revert[] revert = new Revert[1];
            ScheduledFuture<?> future = timer.schedule(
                    () -> {
                        if (pending.remove(key, revert[0])) {
                            revert(revert[0]);
                        }
                    },
                    revertAfterMs,
                    TimeUnit.MILLISECONDS);
            revert[0] = new Revert(future, queue, group, restore);
            pending.put(key, revert[0]);
            answer.put("revertsAt", Instant.now().plusMillis(revertAfterMs).toString());
        } else {
            answer.putNull("revertsAt");
        }
        return answer;
    }

    private static Runnable changeQueue(JobQueue<?> queue, RatePolicy rate, ObjectNode answer) {
        RatePolicy previous = queue.options().rate();
        queue.setRate(rate);
        answer.set("previous", describe(previous));
        answer.set("rate", describe(rate));
        return () -> queue.setRate(previous);
    }

    private static Runnable changeGroup(JobQueue<?> queue, String group, RatePolicy rate, ObjectNode answer) {
        List<GroupInfo> found = queue.groups(group, null, 1);
        boolean own = !found.isEmpty()
                && found.get(0).name().equals(group)
                && found.get(0).ownLimits();
        GroupLimits previous = queue.groupLimits(group);
        queue.setGroupLimits(group, new GroupLimits(rate, previous.concurrency(), previous.maxQueued()));
        answer.set("previous", describe(previous.rate()));
        answer.set("rate", describe(rate));
        return own ? () -> queue.setGroupLimits(group, previous) : () -> queue.clearGroupLimits(group);
    }

    private static JsonNode describe(RatePolicy rate) {
        return rate == null ? JSON.nullNode() : Policies.describe(rate);
    }

    private static void revert(Revert revert) {
        String where =
                "queue '" + revert.queue.name() + "'" + (revert.group == null ? "" : ", group '" + revert.group + "'");
        try {
            revert.restore.run();
            LOG.info("the rate change of {} ended: the rate before it is back", where);
        } catch (RuntimeException e) {
            LOG.warn("the rate change of {} ended but could not be reverted: {}", where, e.toString());
        }
    }

    /** Reverts every change whose expiry is pending, then stops the timer. */
    @Override
    public void close() {
        timer.shutdownNow();
        for (Map.Entry<String, Revert> entry : pending.entrySet()) {
            if (pending.remove(entry.getKey(), entry.getValue())) {
                revert(entry.getValue());
            }
        }
    }
}
