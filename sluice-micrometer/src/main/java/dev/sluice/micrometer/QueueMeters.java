package dev.sluice.micrometer;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.Result;
import dev.sluice.time.SluiceClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The meters of one queue, and of its selected groups: the queue's {@link QueueMetrics} for the counters and timers
 * (told of this process's changes only, so that a sum over processes counts each job once), gauges that read the
 * queue's counts when the registry reads them.
 */
final class QueueMeters implements QueueMetrics {
    private final JobQueue<?> queue;
    private final MeterRegistry registry;
    private final MetricsOptions options;
    private final Tags tags;
    private final MeterSet meters;
    private final JobMeters jobs;
    private final SluiceClock clock;
    private final GroupSelection selection;
    private final ConcurrentHashMap<String, Group> groups = new ConcurrentHashMap<>();

    private volatile boolean removed;

    /** The meters and gauges of one group; removed when the group loses its place. */
    private record Group(MeterSet meters, JobMeters jobs) {}

    QueueMeters(JobQueue<?> queue, MeterRegistry registry, MetricsOptions options, SluiceClock clock) {
        this.queue = queue;
        this.registry = registry;
        this.options = options;
        this.tags = Tags.of(MeterNames.QUEUE, queue.name());
        this.clock = clock;
        this.meters = new MeterSet(registry, options);
        this.jobs = new JobMeters(meters, JobMeters.Names.QUEUE, tags);
        StateGauges.register(meters, MeterNames.QUEUE_JOBS, tags, queue::counts, clock);
        RateGauges.register(
                meters, RateGauges.Names.QUEUE, tags, () -> queue.stats().rate(), clock);
        this.selection = new GroupSelection(options, clock, this::drop);
    }

    /** The meters of {@code name}, if it is a group with a place; the change is counted for the ranking. */
    private JobMeters group(String name) {
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
        RateGauges.register(
                groupMeters,
                RateGauges.Names.GROUP,
                groupTags,
                () -> queue.stats(name).rate(),
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

    /** Records {@code change} on the queue's meters and, if {@code group} has a place, on the group's. */
    private void record(String group, Consumer<JobMeters> change) {
        change.accept(jobs);
        JobMeters groupMeters = group(group);
        if (groupMeters != null) {
            change.accept(groupMeters);
        }
    }

    @Override
    public void added(String group) {
        record(group, JobMeters::added);
    }

    @Override
    public void started(String group, Duration waited) {
        record(group, meters -> meters.started(waited));
    }

    @Override
    public void completed(String group, Duration processing) {
        record(group, meters -> meters.completed(processing));
    }

    @Override
    public void retrying(String group, Job.Attempt.Outcome outcome, Duration processing) {
        record(group, meters -> meters.retried(outcome, processing));
    }

    @Override
    public void failed(String group, Job.Attempt.Outcome outcome, Duration processing) {
        record(group, meters -> meters.failed(outcome, processing));
    }

    @Override
    public void rateLimited(String group, Result.Scope scope, Duration processing) {
        record(group, meters -> meters.rateLimited(scope, processing));
    }

    @Override
    public void rescheduled(String group, Duration processing) {
        record(group, meters -> meters.rescheduled(processing));
    }

    @Override
    public void interrupted(String group, Duration processing) {
        record(group, meters -> meters.interrupted(processing));
    }

    @Override
    public String toString() {
        return "SluiceMetrics of queue '" + queue.name() + "'";
    }
}
