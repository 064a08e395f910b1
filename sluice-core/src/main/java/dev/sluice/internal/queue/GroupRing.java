package dev.sluice.internal.queue;

import dev.sluice.internal.limit.QueueRate;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.GroupLimits;
import dev.sluice.time.SluiceClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A queue's groups and their limits. Ready groups form a ring served round-robin; a group that cannot start now
 * leaves it (parked until a time for a rate or a pause, or held until one of its jobs ends for its concurrency)
 * and comes back when it can, so a blocked group costs nothing per start. Where a group belongs is {@link
 * GroupRules}. Guarded by the queue's lock.
 */
final class GroupRing {
    private static final int MAX_GROUP_KEYS = 1 << 22;
    private static final int MAX_GROUP_STATS = 10_000;

    private final String queue;
    private final SluiceClock clock;
    private final WakeTimer wakeTimer;
    private final HashMap<Group.Key, Group> groups = new HashMap<>();
    private final ArrayDeque<Group> ring = new ArrayDeque<>();
    private final PriorityQueue<Group> parked = new PriorityQueue<>(
            Comparator.<Group>comparingLong(g -> g.parkedUntil).thenComparing(g -> g.key, Group.Key.TIE_ORDER));
    /**
     * The statistics of the most recently used groups, kept while a group is released and created again. Beyond
     * {@link #MAX_GROUP_STATS}, each new group forgets the least recently used one, unless that one is live or
     * still counts kept jobs: then it moves to the back, so that it does not shield the ones behind it.
     */
    private final LinkedHashMap<Group.Key, Group.Stats> statsByGroup = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Group.Key, Group.Stats> eldest) {
            if (size() <= MAX_GROUP_STATS) {
                return false;
            }
            Group.Stats s = eldest.getValue();
            if (s.keptCompleted == 0 && s.keptFailed == 0 && !groups.containsKey(eldest.getKey())) {
                return true;
            }
            get(eldest.getKey());
            return false;
        }
    };

    private GroupLimits defaults;
    private QueueRate defaultRate;
    private final HashMap<String, GroupLimits> overrides = new HashMap<>();
    private final HashMap<String, QueueRate> overrideRates = new HashMap<>();

    GroupRing(String queue, SluiceClock clock, GroupLimits defaults, WakeTimer wakeTimer) {
        this.queue = queue;
        this.clock = clock;
        this.wakeTimer = wakeTimer;
        this.defaults = defaults;
        this.defaultRate = rateFor(defaults.rate(), "default");
    }

    // ---------------------------------------------------------------- groups

    /** The live group {@code key}, created on first use. */
    Group group(Group.Key key) {
        Group group = groups.get(key);
        if (group == null) {
            group = new Group(key, statsByGroup.computeIfAbsent(key, k -> new Group.Stats()));
            groups.put(key, group);
        }
        return group;
    }

    /** The live group of {@code job}, created if it was released. */
    Group group(JobRecord job) {
        Group group = job.group;
        if (group == null || group.released) {
            group = group(job.groupKey);
            job.group = group;
        }
        return group;
    }

    /** The live group {@code key}, or null if it holds nothing now. */
    Group find(Group.Key key) {
        return groups.get(key);
    }

    /** The statistics of group {@code key}, or null if it was never used or long forgotten. */
    Group.Stats statsOf(Group.Key key) {
        return statsByGroup.get(key);
    }

    /** The names of the groups whose statistics are kept (every live group's are), sorted; the ungrouped left out. */
    List<String> namesWithStats() {
        List<String> names = new ArrayList<>(statsByGroup.size());
        for (Group.Key key : statsByGroup.keySet()) {
            if (key.name() != null) {
                names.add(key.name());
            }
        }
        names.sort(null);
        return names;
    }

    Collection<Group> all() {
        return groups.values();
    }

    // ---------------------------------------------------------------- the ring

    /** Puts a group where it belongs: the ring, parked until its pause ends, or held by its concurrency. */
    void offer(Group group, long now) {
        if (group.inRing || group.heldByConcurrency) {
            return;
        }
        switch (placeOf(group, now)) {
            case READY -> {
                ring.addLast(group);
                group.inRing = true;
            }
            case PARKED -> {
                if (group.parkedUntil <= now) {
                    park(group, group.pausedUntil);
                }
            }
            case HELD -> group.heldByConcurrency = true;
            case IDLE, RELEASED -> {}
        }
    }

    private GroupRules.Place placeOf(Group group, long now) {
        return GroupRules.place(
                group.waiting,
                group.delayed,
                group.active,
                limitsOf(group.key).concurrency(),
                group.pausedUntil,
                group.parkedUntil,
                now);
    }

    private void park(Group group, long until) {
        if (group.parkedUntil > Long.MIN_VALUE) {
            parked.remove(group);
        }
        group.parkedUntil = until;
        parked.add(group);
        wakeTimer.arm(until);
    }

    /**
     * The next waiting job of the first ready group in the ring that may start one at {@code now} (its group's
     * rate taken), taken out of its group; null if none may. Groups that may not start leave the ring.
     */
    JobRecord poll(long now) {
        Group group;
        while ((group = ring.pollFirst()) != null) {
            group.inRing = false;
            if (group.released) {
                continue;
            }
            // never PARKED here: a group enters the ring ready, is parked only out of it, and a pause takes it out
            GroupRules.Place place = placeOf(group, now);
            if (place != GroupRules.Place.READY) {
                if (place == GroupRules.Place.HELD) {
                    group.heldByConcurrency = true;
                }
                continue;
            }
            QueueRate groupRate = rateOf(group.key);
            if (groupRate != null) {
                long wait = groupRate.take(group.key.rateKey(), now, group.pausedUntil);
                if (wait > 0) {
                    park(group, GroupRules.parkedForRate(wait, now));
                    continue;
                }
            }
            JobRecord job = group.poll();
            if (group.waiting > 0) {
                ring.addLast(group);
                group.inRing = true;
            }
            return job;
        }
        return null;
    }

    /** After a job of {@code group} left ACTIVE: a group held by its concurrency comes back. */
    void jobEnded(Group group, long now) {
        if (group.heldByConcurrency) {
            group.heldByConcurrency = false;
            offer(group, now); // held again if its concurrency is still full (it may have been lowered)
        }
    }

    /** Pauses {@code group} until {@code until} (a rate-limited result); a longer pause is kept. */
    void pause(Group group, long until) {
        if (until > group.pausedUntil) {
            group.pausedUntil = GroupRules.pausedUntil(group.pausedUntil, until);
            if (group.inRing) {
                ring.remove(group);
                group.inRing = false;
            }
        }
    }

    /**
     * Ends {@code group}'s pause at {@code now}, if it has one: it may start jobs again, its rate ramping up from now.
     *
     * @return whether it was paused
     */
    boolean resume(Group group, long now) {
        if (group.pausedUntil <= now) {
            return false;
        }
        group.pausedUntil = now;
        if (group.parkedUntil > Long.MIN_VALUE) {
            parked.remove(group);
            group.parkedUntil = Long.MIN_VALUE;
        }
        offer(group, now);
        releaseIfIdle(group, now);
        return true;
    }

    /**
     * Lets go of {@code group} if it holds nothing at {@code now}. Left in the ring or among the parked (a park
     * that ended by {@code now}), it is skipped there when its turn comes.
     */
    void releaseIfIdle(Group group, long now) {
        if (!group.released
                && GroupRules.isReleasable(
                        group.waiting, group.delayed, group.active, group.pausedUntil, group.parkedUntil, now)) {
            groups.remove(group.key);
            group.released = true;
        }
    }

    /** Brings back the groups whose park ended at {@code now}. */
    void unparkDue(long now) {
        Group group;
        while ((group = parked.peek()) != null && group.parkedUntil <= now) {
            parked.poll();
            group.parkedUntil = Long.MIN_VALUE;
            if (!group.released) {
                offer(group, now);
                releaseIfIdle(group, now);
            }
        }
    }

    /** When the earliest parked group comes back; {@link Long#MAX_VALUE} if none is parked. */
    long nextDue() {
        return parked.isEmpty() ? Long.MAX_VALUE : parked.peek().parkedUntil;
    }

    // ---------------------------------------------------------------- limits

    /** Whether group {@code name} has limits of its own. */
    boolean hasOwnLimits(String name) {
        return overrides.containsKey(name);
    }

    /** The limits of group {@code key}: its own, or the defaults. */
    GroupLimits limitsOf(Group.Key key) {
        if (key.name() != null && !overrides.isEmpty()) {
            GroupLimits own = overrides.get(key.name());
            if (own != null) {
                return own;
            }
        }
        return defaults;
    }

    /** The limits of every group without limits of its own. */
    GroupLimits defaults() {
        return defaults;
    }

    /** Whether some group has a bound on its waiting jobs. */
    boolean anyBounded() {
        return defaults.maxQueued() != Integer.MAX_VALUE || !overrides.isEmpty();
    }

    void setDefaults(GroupLimits limits) {
        defaultRate = updatedRate(defaultRate, limits.rate(), "default");
        defaults = limits;
        limitsChanged();
    }

    void setOwn(String group, GroupLimits limits) {
        overrides.put(group, limits);
        QueueRate updated = updatedRate(overrideRates.get(group), limits.rate(), group);
        if (updated == null) {
            overrideRates.remove(group);
        } else {
            overrideRates.put(group, updated);
        }
        limitsChanged();
    }

    void clearOwn(String group) {
        overrides.remove(group);
        overrideRates.remove(group);
        limitsChanged();
    }

    QueueRate rateOf(Group.Key key) {
        if (key.name() != null && !overrides.isEmpty() && overrides.containsKey(key.name())) {
            return overrideRates.get(key.name());
        }
        return defaultRate;
    }

    private QueueRate rateFor(RatePolicy policy, String what) {
        return policy == null ? null : new QueueRate(queue + ":group:" + what, policy, clock, MAX_GROUP_KEYS);
    }

    private QueueRate updatedRate(QueueRate current, RatePolicy policy, String what) {
        if (policy == null) {
            return null;
        }
        if (current != null && current.canAdopt(policy)) {
            current.update(policy);
            return current;
        }
        return rateFor(policy, what);
    }

    /** Lets every group be looked at again under new limits (the queue's or the groups'). */
    void limitsChanged() {
        long now = clock.nanos();
        parked.clear();
        List<Group> inOrder = new ArrayList<>(groups.values());
        inOrder.sort(Comparator.comparing(g -> g.key, Group.Key.TIE_ORDER));
        for (Group group : inOrder) {
            group.parkedUntil = Long.MIN_VALUE;
            group.heldByConcurrency = false;
            offer(group, now);
        }
    }
}
