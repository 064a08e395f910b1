package dev.sluice.micrometer;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.time.SluiceClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The meters of one queue, and of its selected groups: a local listener of the queue for the counters and timers
 * (it hears this process's changes only, so that a sum over processes counts each job once), gauges that read the
 * queue's counts when the registry reads them.
 *
 * @param <T> the queue's payload type
 */
final class QueueMeters<T> implements QueueListener<T> {
    private final JobQueue<T> queue;
    private final MeterRegistry registry;
    private final MetricsOptions options;
    private final Tags tags;
    private final MeterSet meters;
    private final JobMeters jobs;
    private final SluiceClock clock;
    private final GroupSelection selection;
    private final ConcurrentHashMap<String, Group> groups = new ConcurrentHashMap<>();
    /** Jobs sent back to wait for a delay: when each is ready again, so that its next wait is measured from then. */
    private final Attempts.ReadyTimes readyAfterDelay = new Attempts.ReadyTimes(READY_TIMES_KEPT);

    /** The most jobs in a backoff or run-again delay whose ready time is kept (about 100 bytes each). */
    static final int READY_TIMES_KEPT = 100_000;

    private volatile boolean removed;

    /** The meters and gauges of one group; removed when the group loses its place. */
    private record Group(MeterSet meters, JobMeters jobs) {}

    QueueMeters(JobQueue<T> queue, MeterRegistry registry, MetricsOptions options, SluiceClock clock) {
        this.queue = queue;
        this.registry = registry;
        this.options = options;
        this.tags = Tags.of(MeterNames.QUEUE, queue.name());
        this.clock = clock;
        this.meters = new MeterSet(registry, options);
        this.jobs = new JobMeters(meters, JobMeters.Names.QUEUE, tags);
        StateGauges.register(meters, MeterNames.QUEUE_JOBS, tags, queue::counts, clock);
        this.selection = new GroupSelection(options, clock, this::drop);
    }

    /** The meters of {@code job}'s group, if it has a group with a place; the event is counted for the ranking. */
    private JobMeters group(Job<T> job) {
        String name = job.group();
        if (name == null || removed || !selection.heard(name)) {
            return null;
        }
        return groups.computeIfAbsent(name, this::newGroup).jobs();
    }

    private Group newGroup(String name) {
        MeterSet groupMeters = new MeterSet(registry, options);
        Tags groupTags = tags.and(MeterNames.GROUP, name);
        StateGauges.register(
                groupMeters,
                MeterNames.GROUP_JOBS,
                groupTags,
                () -> queue.stats(name).counts(),
                clock);
        Group group = new Group(groupMeters, new JobMeters(groupMeters, JobMeters.Names.GROUP, groupTags));
        if (removed) {
            groupMeters.removeAll();
        }
        return group;
    }

    private void drop(String name) {
        Group group = groups.remove(name);
        if (group != null) {
            group.meters().removeAll();
        }
    }

    /** Removes every meter of the queue and of its groups from the registry. */
    void remove() {
        removed = true;
        meters.removeAll();
        groups.values().forEach(group -> group.meters().removeAll());
        groups.clear();
    }

    /** Records {@code event} on the queue's meters and, if {@code job}'s group has a place, on the group's. */
    private void record(Job<T> job, Consumer<JobMeters> event) {
        event.accept(jobs);
        JobMeters group = group(job);
        if (group != null) {
            event.accept(group);
        }
    }

    @Override
    public void onAdded(Job<T> job) {
        record(job, JobMeters::added);
    }

    @Override
    public void onActive(Job<T> job) {
        Duration waited = Attempts.waited(job, readyAfterDelay.take(job.id()));
        record(job, meters -> meters.started(waited));
    }

    @Override
    public void onCompleted(Job<T> job) {
        record(job, meters -> meters.completed(job));
    }

    @Override
    public void onRetrying(Job<T> job, Throwable error, Duration delay) {
        readyAfterDelay.put(job.id(), Attempts.readyAfter(job, delay));
        record(job, meters -> meters.retried(job));
    }

    @Override
    public void onFailed(Job<T> job) {
        record(job, meters -> meters.failed(job));
    }

    @Override
    public void onRateLimited(Job<T> job, Result.Scope scope, Duration retryAfter) {
        record(job, meters -> meters.rateLimited(job, scope));
    }

    @Override
    public void onRescheduled(Job<T> job, Duration delay) {
        readyAfterDelay.put(job.id(), Attempts.readyAfter(job, delay));
        record(job, meters -> meters.rescheduled(job));
    }

    @Override
    public String toString() {
        return "SluiceMetrics listener of queue '" + queue.name() + "'";
    }
}
