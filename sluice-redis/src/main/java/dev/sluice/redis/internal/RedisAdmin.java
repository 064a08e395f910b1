package dev.sluice.redis.internal;

import dev.sluice.internal.queue.QueueAdmin;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.internal.queue.RetentionRules;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The managing of a Redis queue: pausing it, removing, retrying, cleaning and draining jobs, and its limits (rate,
 * concurrency, groups' limits), each one call of the queue script; a change of a setting is noted, so that this
 * process can restore it should Redis lose it ({@link QueueSettings}).
 */
final class RedisAdmin<T> implements QueueAdmin {
    private final RedisJobQueue<T> queue;

    RedisAdmin(RedisJobQueue<T> queue) {
        this.queue = queue;
    }

    // ---------------------------------------------------------------- managing

    @Override
    public void pause() {
        queue.calls.call(true, "pause", "1");
    }

    @Override
    public void resume() {
        queue.calls.call(true, "pause", "0");
        queue.signal();
    }

    @Override
    public boolean isPaused() {
        return Replies.number(queue.calls.call(false, "paused")) == 1;
    }

    @Override
    public boolean remove(String id) {
        Object reply = queue.calls.call(true, "remove", id);
        if (reply instanceof byte[]) {
            throw new IllegalStateException(
                    "job '" + id + "' of queue '" + queue.name + "' is active; a running job cannot be removed");
        }
        boolean removed = Replies.number(reply) == 1;
        if (removed) {
            queue.removedBeforeFinishing(id);
        }
        return removed;
    }

    @Override
    public void retry(String id, JobState from) {
        String answer = Replies.text(queue.calls.call(true, "retry", id, from == JobState.COMPLETED ? "c" : "f"));
        if (answer.equals("missing")) {
            throw new JobNotFoundException(queue.name, id);
        }
        if (!answer.equals("ok")) {
            throw new IllegalStateException("job '" + id + "' of queue '" + queue.name + "' is " + answer + "; only a "
                    + from + " job can be retried as " + from);
        }
        queue.signal();
    }

    @Override
    public int retryFailed() {
        int n = (int) Replies.number(queue.calls.call(true, "retryFailed"));
        queue.signal();
        return n;
    }

    @Override
    public int clean(JobState state, Duration age) {
        String ageArg = RetentionRules.cleanCutoff(age, 0) == Long.MIN_VALUE
                ? "none"
                : Long.toString(RedisJobQueue.micros(age));
        return (int) Replies.number(queue.calls.call(true, "clean", state == JobState.COMPLETED ? "c" : "f", ageArg));
    }

    @Override
    public int drain(boolean delayedToo) {
        int drained = (int) Replies.number(queue.calls.call(true, "drain", delayedToo ? "1" : "0"));
        queue.signal();
        return drained;
    }

    @Override
    public void promote(String id) {
        String answer = Replies.text(queue.calls.call(true, "promote", id));
        if (answer.equals("missing")) {
            throw new JobNotFoundException(queue.name, id);
        }
        if (!answer.equals("ok")) {
            JobState state = switch (answer) {
                case "w" -> JobState.WAITING;
                case "a" -> JobState.ACTIVE;
                case "c" -> JobState.COMPLETED;
                default -> JobState.FAILED;
            };
            throw QueueChecks.notDelayed(queue.name, id, state);
        }
        queue.signal();
    }

    @Override
    public void pauseGroup(String group) {
        queue.calls.call(true, "pauseGroup", group == null ? "" : group);
    }

    @Override
    public boolean resumeGroup(String group) {
        boolean resumed = Replies.number(queue.calls.call(true, "resumeGroup", group == null ? "" : group)) == 1;
        queue.signal();
        return resumed;
    }

    // ---------------------------------------------------------------- limits

    @Override
    public void setRate(RatePolicy rate) {
        String stored = RateText.encode(rate);
        noteChange(
                "rate",
                stored,
                rate == null ? "no rate" : "rate " + rate,
                queue.calls.call(true, "limits", "rate", stored));
        queue.signal();
    }

    @Override
    public void setConcurrency(int concurrency) {
        String stored = Integer.toString(concurrency);
        noteChange(
                "concurrency",
                stored,
                "concurrency " + concurrency,
                queue.calls.call(true, "limits", "concurrency", stored));
        queue.signal();
    }

    @Override
    public void setGroupDefaults(GroupLimits limits) {
        String concurrency = Integer.toString(limits.concurrency());
        String maxQueued = Integer.toString(limits.maxQueued());
        String rate = RateText.encode(limits.rate());
        Object stamp = queue.calls.call(true, "limits", "defaults", concurrency, maxQueued, rate);
        noteChange("gconc", concurrency, "group concurrency " + concurrency, stamp);
        noteChange("gmax", maxQueued, "group maxQueued " + maxQueued, stamp);
        noteChange("grate", rate, "group rate " + limits.rate(), stamp);
        queue.signal();
    }

    @Override
    public void setGroupLimits(String group, GroupLimits limits) {
        String concurrency = Integer.toString(limits.concurrency());
        String maxQueued = Integer.toString(limits.maxQueued());
        String rate = RateText.encode(limits.rate());
        Object stamp = queue.calls.call(true, "limits", "group", group, concurrency, maxQueued, rate);
        noteChange(
                "gl:g" + group, concurrency + "|" + maxQueued + "|" + rate, "group '" + group + "' " + limits, stamp);
        queue.signal();
    }

    @Override
    public void clearGroupLimits(String group) {
        noteChange(
                "gl:g" + group,
                "",
                "group '" + group + "' without own limits",
                queue.calls.call(true, "limits", "clear", group));
        queue.signal();
    }

    /** Notes a change of setting {@code setting} to {@code stored}, which the script made at {@code stamp}. */
    private void noteChange(String setting, String stored, String text, Object stamp) {
        queue.settings.note(setting, "=" + stored, Replies.number(stamp), text);
    }

    @Override
    public GroupLimits groupLimits(String group) {
        return groupLimitsIn(limitsOf(group));
    }

    @Override
    public void gauge(String name, double value, double threshold) {
        adapt("gauge", name, Double.toString(value), Double.toString(threshold));
    }

    @Override
    public void gaugeStale(String name) {
        adapt("stale", name);
    }

    /** Tells the queue's adaptive rate a signal of the whole queue (the library's adapt command). */
    private void adapt(String kind, String... values) {
        adapt(queue, "u", Result.Scope.QUEUE, kind, values);
    }

    /**
     * Tells the nearest adaptive rate of {@code scope} for the jobs of {@code group} ({@code u} or {@code g<name>})
     * the signal {@code kind} with its {@code values} (the library's adapt command); a change it makes is told to
     * this process's listeners from the stream, as the other processes'.
     */
    static void adapt(RedisJobQueue<?> queue, String group, Result.Scope scope, String kind, String... values) {
        String[] args = new String[values.length + 3];
        args[0] = group;
        args[1] = scope.name();
        args[2] = kind;
        System.arraycopy(values, 0, args, 3, values.length);
        QueueCalls.Sequenced sequenced = queue.calls.callInOrder(true, queue.calls.arguments("adapt", args));
        queue.calls.deliver(sequenced.ticket(), List.of());
    }

    @Override
    public Limits limits() {
        List<Object> reply = limitsOf(null);
        return new Limits(RateText.decode(Replies.textOrNull(reply.get(4))), bound(reply.get(3)), groupLimitsIn(reply));
    }

    /** The reply of the library's groupLimits for {@code group} (null: the ungrouped jobs, under the defaults). */
    private List<Object> limitsOf(String group) {
        return Replies.list(queue.calls.call(false, "groupLimits", group == null ? "" : group));
    }

    /** The state of the groups {@code names}, in that order. */
    List<GroupInfo> groupInfos(List<String> names) {
        if (names.isEmpty()) {
            return List.of();
        }
        List<Object> reply = Replies.list(queue.calls.call(false, "groupInfos", names.toArray(String[]::new)));
        List<GroupInfo> infos = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            List<Object> g = Replies.list(reply.get(i));
            long pausedUntil = Replies.number(g.get(3));
            infos.add(new GroupInfo(
                    names.get(i),
                    Replies.number(g.get(0)),
                    Replies.number(g.get(1)),
                    Replies.number(g.get(2)),
                    pausedUntil == PAUSED_UNTIL_RESUMED,
                    pausedUntil < 0 || pausedUntil == PAUSED_UNTIL_RESUMED
                            ? null
                            : SluiceClock.toInstant(Math.multiplyExact(pausedUntil, 1000L)),
                    groupLimitsIn(g.subList(4, 7)),
                    Replies.number(g.get(7)) == 1));
        }
        return infos;
    }

    /** The end the script gives a group's pause that holds until it is resumed: 2^53 us, its "never". */
    private static final long PAUSED_UNTIL_RESUMED = 1L << 53;

    private static GroupLimits groupLimitsIn(List<Object> reply) {
        return new GroupLimits(
                RateText.decode(Replies.textOrNull(reply.get(2))), bound(reply.get(0)), bound(reply.get(1)));
    }

    /** A stored bound; "none" is stored as 2^53, which is more than any int. */
    private static int bound(Object stored) {
        return (int) Math.min(Integer.MAX_VALUE, Replies.number(stored));
    }
}
