package dev.sluice.redis.internal;

import dev.sluice.internal.queue.JobCursor;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobPage;
import dev.sluice.queue.JobState;
import java.util.ArrayList;
import java.util.List;

/**
 * Pages of a Redis queue's jobs by cursor: the command {@code page} of {@code queue-pages.lua} reads the page and the
 * place it ends at, which this class turns into the caller's {@link JobCursor} and back. A group travels in the form
 * the library's keys use ({@code u} for the ungrouped jobs, {@code g<name>} for a group).
 */
final class RedisJobPages {
    private RedisJobPages() {}

    /** The page of {@code state} after {@code after} (null: the first), {@code limit} jobs at most. */
    static <T> JobPage<T> page(RedisJobQueue<T> queue, JobState state, JobCursor after, int limit) {
        List<String> args = new ArrayList<>(List.of(state.name(), Integer.toString(limit)));
        if (after != null) {
            String group = state != JobState.WAITING ? "" : after.group() == null ? "u" : "g" + after.group();
            args.addAll(List.of(group, Long.toString(after.first()), Long.toString(after.second()), after.id()));
        }
        List<Object> reply = Replies.list(queue.calls.call(false, "page", args.toArray(String[]::new)));
        List<Job<T>> jobs = new ArrayList<>(reply.size() - 1);
        for (Object job : reply.subList(1, reply.size())) {
            jobs.add(queue.snapshot(job, null, false));
        }
        return new JobPage<>(jobs, reply.get(0) == null ? null : cursor(state, Replies.list(reply.get(0))));
    }

    private static String cursor(JobState state, List<Object> place) {
        String gid = Replies.text(place.get(0));
        String group = gid.startsWith("g") ? gid.substring(1) : null;
        return new JobCursor(
                        state,
                        group,
                        Replies.number(place.get(1)),
                        Replies.number(place.get(2)),
                        Replies.text(place.get(3)))
                .text();
    }
}
