package dev.sluice.internal.queue;

import dev.sluice.queue.JobPage;
import dev.sluice.queue.JobState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Pages of an in-memory queue's jobs by cursor ({@link JobCursor}): where a page ends is a place in its state's order
 * (waiting: group, priority, lane order; delayed: due time and order; active: start and order; finished: the finish's
 * number), so the next page begins after it however jobs moved meanwhile. Read under the queue's lock; payloads are
 * decoded after it is released.
 *
 * <p>Cost: a waiting page walks the cursor's group from its start (a lane is a deque), O(groups log groups + the
 * cursor's position in its group + limit); delayed and active pages O(n log n) of their state, as their offset pages;
 * a finished page O(the cursor's position + limit).
 */
final class InMemoryPages<T> {
    /** The order of delayed and active jobs: by {@code time} (due or started), then the order they took it in. */
    private static Comparator<JobRecord> by(java.util.function.ToLongFunction<JobRecord> time) {
        return Comparator.comparingLong(time).thenComparingLong(j -> j.seq).thenComparing(j -> j.id);
    }

    private static final Comparator<JobRecord> DELAYED = by(j -> j.runAt);
    private static final Comparator<JobRecord> ACTIVE = by(j -> j.startedAt);

    private final InMemoryQueue<T> queue;

    InMemoryPages(InMemoryQueue<T> queue) {
        this.queue = queue;
    }

    JobPage<T> jobs(JobState state, String text, int limit) {
        queue.checkOpen();
        JobCursor after = QueueChecks.checkCursorPage(state, text, limit);
        List<Undecoded<T>> page = new ArrayList<>();
        JobCursor next = null;
        queue.lock.lock();
        try {
            List<JobRecord> selected = new ArrayList<>(Math.min(limit, 1_000) + 1);
            switch (state) {
                case WAITING -> waiting(after, limit + 1, selected);
                case DELAYED -> sorted(queue.store.delayedJobs(), DELAYED, cursorOf(state, after), limit + 1, selected);
                case ACTIVE -> {
                    List<JobRecord> active = new ArrayList<>();
                    for (JobRecord job : queue.store.all()) {
                        if (job.state == JobState.ACTIVE) {
                            active.add(job);
                        }
                    }
                    sorted(active, ACTIVE, cursorOf(state, after), limit + 1, selected);
                }
                case COMPLETED, FAILED ->
                    queue.store.finishedBefore(
                            state, after == null ? Long.MAX_VALUE : after.first(), limit + 1, selected);
            }
            if (selected.size() > limit) {
                selected.remove(limit);
                next = placeOf(state, selected.get(limit - 1));
            }
            for (JobRecord job : selected) {
                page.add(queue.undecoded(job));
            }
        } finally {
            queue.lock.unlock();
        }
        return new JobPage<>(Undecoded.decodeAll(page), next == null ? null : next.text());
    }

    /** Under the lock: the waiting jobs after {@code after}, group after group in {@link Group.Key#TIE_ORDER}. */
    private void waiting(JobCursor after, int most, List<JobRecord> into) {
        Group.Key from = after == null ? null : Group.Key.of(after.group());
        List<Group> groups = new ArrayList<>();
        for (Group group : queue.groups.all()) {
            if (group.waiting > 0 && (from == null || Group.Key.TIE_ORDER.compare(group.key, from) >= 0)) {
                groups.add(group);
            }
        }
        groups.sort(Comparator.comparing(g -> g.key, Group.Key.TIE_ORDER));
        for (Group group : groups) {
            if (into.size() >= most) {
                return;
            }
            group.waitingAfter(group.key.equals(from) ? after : null, most, into);
        }
    }

    /** A record standing for the place of {@code after}, to compare jobs of a sorted state with; null if none. */
    private static JobRecord cursorOf(JobState state, JobCursor after) {
        if (after == null) {
            return null;
        }
        JobRecord place = new JobRecord(after.id(), null, null, null, null, 0, null, 0);
        place.runAt = after.first();
        place.startedAt = after.first();
        place.seq = after.second();
        return place;
    }

    /** Into {@code into}: the first {@code most} of {@code jobs} in {@code order} that come after {@code after}. */
    private static void sorted(
            Iterable<JobRecord> jobs, Comparator<JobRecord> order, JobRecord after, int most, List<JobRecord> into) {
        List<JobRecord> later = new ArrayList<>();
        for (JobRecord job : jobs) {
            if (after == null || order.compare(job, after) > 0) {
                later.add(job);
            }
        }
        later.sort(order);
        into.addAll(later.subList(0, Math.min(most, later.size())));
    }

    /** The place of {@code job} in {@code state}'s order, where the page that ends with it ends. */
    private static JobCursor placeOf(JobState state, JobRecord job) {
        return switch (state) {
            case WAITING -> new JobCursor(state, job.groupKey.name(), job.priority(), job.waitOrder, job.id);
            case DELAYED -> new JobCursor(state, null, job.runAt, job.seq, job.id);
            case ACTIVE -> new JobCursor(state, null, job.startedAt, job.seq, job.id);
            case COMPLETED, FAILED -> new JobCursor(state, null, job.finish, 0, job.id);
        };
    }
}
