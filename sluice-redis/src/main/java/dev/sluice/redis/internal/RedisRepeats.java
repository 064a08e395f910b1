package dev.sluice.redis.internal;

import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.internal.queue.RepeatPlanner;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A Redis queue's repeatable jobs. Each one's record lives in Redis; its runs are planned here, in Java, by
 * {@link RepeatPlanner} (cron needs a calendar), and written with the record in one call of the queue script that
 * checks the record's version, so that processes planning at once make each run once (its id is deterministic).
 * The script lists the events of pending runs (came due, ended, removed); whichever process's call sees them plans
 * from them before the call returns.
 */
final class RedisRepeats<T> {
    private final RedisJobQueue<T> queue;
    /** Set while this thread plans, so that the planning calls do not plan again. */
    private static final ThreadLocal<Boolean> PLANNING = ThreadLocal.withInitial(() -> false);

    private SluiceClock.Timer wake;
    private long wakeAt = Long.MAX_VALUE;

    RedisRepeats(RedisJobQueue<T> queue) {
        this.queue = queue;
    }

    /** A repeatable job's record: what it adds, how many runs it made, when its next run is due. */
    private record Record(
            Schedule schedule,
            String templateName,
            JobOptions templateOptions,
            String runOptions,
            Instant anchor,
            long runs,
            Instant nextRun) {}

    private record Read(Record record, long version, byte[] payload, String pending, Instant now) {}

    // ---------------------------------------------------------------- the API

    RepeatableJob<T> register(String id, Schedule schedule, NewJob<T> template, QueueChecks.Prepared prepared) {
        String runOptions = queue.optionsText.encode(prepared.options());
        while (true) {
            Read read = read(id);
            Record existing = read.record;
            if (existing != null
                    && existing.schedule.equals(schedule)
                    && existing.templateName.equals(template.name())
                    && java.util.Arrays.equals(read.payload, prepared.payload())
                    && existing.runOptions.equals(runOptions)) {
                return view(id, existing, read.payload);
            }
            Instant anchor = read.now;
            Record fresh = new Record(schedule, template.name(), template.options(), runOptions, anchor, 0, null);
            Optional<Instant> first = RepeatPlanner.first(schedule, read.now, anchor);
            Record saved = plan(id, fresh, read.version, prepared.payload(), first, read.now, existing != null);
            if (saved != null) {
                return view(id, saved, prepared.payload());
            }
        }
    }

    boolean remove(String id) {
        return Replies.number(queue.calls.call(true, "repDel", id)) == 1;
    }

    List<RepeatableJob<T>> views() {
        List<Object> reply = Replies.list(queue.calls.call(false, "repList"));
        List<RepeatableJob<T>> all = new ArrayList<>(reply.size() / 3);
        for (int i = 0; i < reply.size(); i += 3) {
            all.add(view(
                    Replies.text(reply.get(i)),
                    decode(Replies.text(reply.get(i + 1))),
                    Replies.bytes(reply.get(i + 2))));
        }
        return all;
    }

    // ---------------------------------------------------------------- events of pending runs

    /** Plans from every event of a pending run the script listed, unless this thread is planning already. */
    void planPending() {
        if (PLANNING.get()) {
            return;
        }
        PLANNING.set(true);
        try {
            Object entry;
            while ((entry = queue.calls.call(true, "repPop")) != null) {
                planFrom(Replies.text(entry));
            }
        } finally {
            PLANNING.set(false);
        }
    }

    /**
     * An event {@code event|scheduledAt|at|repeatId} (times in epoch microseconds; the id last, since it may hold
     * any character) of the pending run, whose id follows from the repeatable's and its time.
     */
    private void planFrom(String entry) {
        String[] parts = entry.split("\\|", 4);
        String event = parts[0];
        Instant scheduledAt = JobSnapshots.instant(Long.parseLong(parts[1]));
        Instant at = JobSnapshots.instant(Long.parseLong(parts[2]));
        String id = parts[3];
        String runId = RepeatPlanner.runId(id, scheduledAt);
        while (true) {
            Read read = read(id);
            Record r = read.record;
            if (r == null || !runId.equals(read.pending)) {
                return;
            }
            boolean fixedDelay = r.schedule.kind() == Schedule.Kind.FIXED_DELAY;
            Optional<Instant> from;
            switch (event) {
                case "due" -> {
                    if (fixedDelay) {
                        // it waits for the run to end; meanwhile it shows no next run
                        Record waiting = new Record(
                                r.schedule, r.templateName, r.templateOptions, r.runOptions, r.anchor, r.runs, null);
                        if (save(id, read.version, waiting, read.payload, runId, List.of(), false) != null) {
                            return;
                        }
                        continue;
                    }
                    from = RepeatPlanner.afterDue(r.schedule, scheduledAt, r.anchor);
                }
                case "ended" -> {
                    if (!fixedDelay) {
                        return;
                    }
                    from = RepeatPlanner.afterEnd(r.schedule, at, r.anchor);
                }
                default -> from = RepeatPlanner.afterRemoval(r.schedule, scheduledAt, at, r.anchor);
            }
            if (plan(id, r, read.version, read.payload, from, at, false) != null) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- planning

    /**
     * Plans the runs of {@code r} from {@code from} at {@code now} and writes them with the record; null if the
     * record changed meanwhile (read again and retry).
     */
    private Record plan(
            String id, Record r, long version, byte[] payload, Optional<Instant> from, Instant now, boolean dropOld) {
        RepeatPlanner.Plan plan =
                RepeatPlanner.plan(id, r.schedule, r.anchor, r.runs, from, now, runId -> held(id, runId));
        Record next = new Record(
                r.schedule,
                r.templateName,
                r.templateOptions,
                r.runOptions,
                r.anchor,
                r.runs + plan.runs().size(),
                plan.nextRun());
        List<RepeatPlanner.Run> toAdd = new ArrayList<>();
        for (RepeatPlanner.Run run : plan.runs()) {
            if (run.add()) {
                toAdd.add(run);
            }
        }
        String pending = plan.pending() == null ? "" : plan.pending().id();
        return save(id, version, next, payload, pending, toAdd, dropOld);
    }

    private Record save(
            String id,
            long version,
            Record r,
            byte[] payload,
            String pending,
            List<RepeatPlanner.Run> runs,
            boolean dropOld) {
        byte[][] args = new byte[10 + runs.size() * AddFields.COUNT][];
        int at = 0;
        args[at++] = RedisJobQueue.bytes("repSave");
        args[at++] = RedisJobQueue.bytes(queue.calls.now());
        args[at++] = RedisJobQueue.bytes(id);
        args[at++] = RedisJobQueue.bytes(Long.toString(version));
        args[at++] = RedisJobQueue.bytes(encode(r));
        args[at++] = payload;
        args[at++] = RedisJobQueue.bytes(pending);
        args[at++] = RedisJobQueue.bytes(r.schedule.kind() == Schedule.Kind.FIXED_DELAY ? "d" : "r");
        args[at++] = RedisJobQueue.bytes(dropOld ? "1" : "0");
        args[at++] = RedisJobQueue.bytes(Integer.toString(runs.size()));
        JobOptions resolved = queue.optionsText.decode(r.runOptions);
        for (RepeatPlanner.Run run : runs) {
            JobOptions runOptions = resolved.toBuilder().jobId(run.id()).build();
            QueueChecks.Prepared prepared = new QueueChecks.Prepared(run.id(), r.templateName, payload, runOptions);
            at = queue.addFields.write(args, at, prepared, id, micros(run.at()));
        }
        QueueCalls.Sequenced sequenced = queue.calls.callInOrder(true, args);
        List<Consumer<QueueListener<T>>> events = new ArrayList<>();
        try {
            Object reply = sequenced.reply();
            if (!(reply instanceof List<?>)) {
                return null;
            }
            List<Object> added = Replies.list(reply);
            for (int i = 1; i < added.size(); i++) {
                var job = queue.snapshot(added.get(i), null, false);
                events.add(l -> l.onAdded(job));
                queue.calls.measure(() -> queue.metrics.tell(m -> m.added(job.group())));
            }
        } finally {
            queue.calls.deliver(sequenced.ticket(), events);
        }
        if (!events.isEmpty()) {
            queue.signal();
        }
        if (r.nextRun != null) {
            armWake(r.nextRun);
        }
        return r;
    }

    /**
     * Looks at Redis when a pending run comes due, so that the run after it is planned as the clock moves (another
     * process's call would too).
     */
    private synchronized void armWake(Instant due) {
        long at = SluiceClock.toEpochNanos(due);
        if (wake != null && wakeAt <= at) {
            return;
        }
        if (wake != null) {
            wake.cancel();
        }
        wakeAt = at;
        long delay = Math.max(1, at - queue.clock().nanos());
        wake = queue.clock().schedule(delay, this::wakeUp);
    }

    private void wakeUp() {
        synchronized (this) {
            wake = null;
            wakeAt = Long.MAX_VALUE;
        }
        if (!queue.isClosed()) {
            try {
                queue.calls.call(true, "nextDue");
            } catch (RuntimeException e) {
                // the next call of any process plans from the event instead
            }
            queue.signal();
        }
    }

    /** What the queue holds under a run's id. */
    private RepeatPlanner.Held held(String repeatId, String runId) {
        Object reply = queue.calls.call(false, "get", runId);
        if (reply == null) {
            return RepeatPlanner.Held.NOTHING;
        }
        List<Object> job = Replies.list(reply);
        String state = Replies.text(SnapshotField.STATE.of(job));
        boolean unfinished = state.equals("WAITING") || state.equals("DELAYED") || state.equals("ACTIVE");
        return unfinished && repeatId.equals(Replies.textOrNull(SnapshotField.REPEAT_ID.of(job)))
                ? RepeatPlanner.Held.UNFINISHED_RUN
                : RepeatPlanner.Held.TAKEN;
    }

    // ---------------------------------------------------------------- records

    private Read read(String id) {
        List<Object> r = Replies.list(queue.calls.call(false, "repGet", id));
        String text = Replies.textOrNull(r.get(0));
        return new Read(
                text == null ? null : decode(text),
                Replies.number(r.get(1)),
                Replies.bytes(r.get(2)),
                Replies.textOrNull(r.get(3)),
                JobSnapshots.instant(r.get(4)));
    }

    private RepeatableJob<T> view(String id, Record r, byte[] payload) {
        T decoded;
        try {
            decoded = queue.codec().decode(payload);
        } catch (RuntimeException e) {
            decoded = null;
        }
        return new RepeatableJob<>(
                id, r.schedule, new NewJob<>(r.templateName, decoded, r.templateOptions), r.runs, r.nextRun);
    }

    private String encode(Record r) {
        StringBuilder out = new StringBuilder(128);
        Schedule s = r.schedule;
        JobOptionsText.token(out, s.kind().name());
        JobOptionsText.token(out, s.kind() == Schedule.Kind.CRON ? s.expression() : null);
        JobOptionsText.token(out, s.kind() == Schedule.Kind.CRON ? s.zone().getId() : null);
        JobOptionsText.token(out, s.kind() == Schedule.Kind.CRON ? null : s.interval());
        JobOptionsText.token(out, s.start() == null ? null : s.start().toString());
        JobOptionsText.token(out, s.end() == null ? null : s.end().toString());
        JobOptionsText.token(out, Integer.toString(s.maxRuns()));
        JobOptionsText.token(out, r.templateName);
        JobOptionsText.token(out, queue.optionsText.encode(r.templateOptions));
        JobOptionsText.token(out, r.runOptions);
        JobOptionsText.token(out, r.anchor.toString());
        JobOptionsText.token(out, Long.toString(r.runs));
        JobOptionsText.token(out, r.nextRun == null ? null : r.nextRun.toString());
        return out.toString();
    }

    private Record decode(String text) {
        JobOptionsText.Reader in = new JobOptionsText.Reader(text);
        Schedule.Kind kind = Schedule.Kind.valueOf(in.next());
        String expression = in.next();
        String zone = in.next();
        Duration interval = in.duration();
        String start = in.next();
        String end = in.next();
        int limit = Integer.parseInt(in.next());
        Schedule schedule = switch (kind) {
            case CRON -> Schedule.cron(expression, ZoneId.of(zone));
            case FIXED_RATE -> Schedule.fixedRate(interval);
            case FIXED_DELAY -> Schedule.fixedDelay(interval);
        };
        if (start != null) {
            schedule = schedule.startingAt(Instant.parse(start));
        }
        if (end != null) {
            schedule = schedule.endingAt(Instant.parse(end));
        }
        if (limit != Integer.MAX_VALUE) {
            schedule = schedule.maxRuns(limit);
        }
        String templateName = in.next();
        JobOptions templateOptions = queue.optionsText.decode(in.next());
        String runOptions = in.next();
        Instant anchor = Instant.parse(in.next());
        long runs = Long.parseLong(in.next());
        String nextRun = in.next();
        return new Record(
                schedule,
                templateName,
                templateOptions,
                runOptions,
                anchor,
                runs,
                nextRun == null ? null : Instant.parse(nextRun));
    }

    private static long micros(Instant at) {
        return Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000L), at.getNano() / 1000);
    }
}
