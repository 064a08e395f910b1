package dev.sluice.micrometer;

import java.util.Map;

/**
 * The name of every meter {@link SluiceMetrics} registers, and of every tag key, in Micrometer's dot-separated
 * lower-case form (a Prometheus registry writes {@code sluice.queue.jobs.added} as {@code
 * sluice_queue_jobs_added_total}). Times are recorded in Micrometer's base unit for the registry (seconds for
 * Prometheus). Every meter carries a description of what it measures, which a Prometheus scrape shows as its
 * {@code # HELP} line. The README's "Metrics" section has the table of every meter, its type, its tags and what it
 * counts.
 */
public final class MeterNames {
    /** Counter: decisions of a limiter; tags {@link #LIMITER}, {@link #OUTCOME}, {@link #BASIS}. */
    public static final String LIMITER_DECISIONS = "sluice.limiter.decisions";

    /** Counter: times a limiter's engine became unavailable (once per outage); tag {@link #LIMITER}. */
    public static final String LIMITER_OUTAGES = "sluice.limiter.outages";

    /** Gauge: 1 while a limiter's engine is unavailable, else 0; tag {@link #LIMITER}. */
    public static final String LIMITER_UNAVAILABLE = "sluice.limiter.unavailable";

    /** Counter: idle keys a limiter dropped; tag {@link #LIMITER}. */
    public static final String LIMITER_KEYS_EVICTED = "sluice.limiter.keys.evicted";

    /** Counter: decisions made against a full key table's shared overflow; tag {@link #LIMITER}. */
    public static final String LIMITER_KEYS_OVERFLOWED = "sluice.limiter.keys.overflowed";

    /** Gauge: jobs of a queue in a state, read when the registry reads it; tags {@link #QUEUE}, {@link #STATE}. */
    public static final String QUEUE_JOBS = "sluice.queue.jobs";

    /** Counter: jobs added to a queue; tag {@link #QUEUE}. */
    public static final String QUEUE_JOBS_ADDED = "sluice.queue.jobs.added";

    /** Counter: jobs completed; tag {@link #QUEUE}. */
    public static final String QUEUE_JOBS_COMPLETED = "sluice.queue.jobs.completed";

    /** Counter: jobs failed for good; tag {@link #QUEUE}. */
    public static final String QUEUE_JOBS_FAILED = "sluice.queue.jobs.failed";

    /** Counter: failed attempts that will run again; tag {@link #QUEUE}. */
    public static final String QUEUE_JOBS_RETRIED = "sluice.queue.jobs.retried";

    /** Counter: jobs their processor returned as rate-limited; tags {@link #QUEUE}, {@link #SCOPE}. */
    public static final String QUEUE_JOBS_RATE_LIMITED = "sluice.queue.jobs.rate.limited";

    /** Counter: jobs their processor asked to run again later; tag {@link #QUEUE}. */
    public static final String QUEUE_JOBS_RESCHEDULED = "sluice.queue.jobs.rescheduled";

    /** Timer: from a job being ready to its attempt's start; tag {@link #QUEUE}. */
    public static final String QUEUE_WAIT = "sluice.queue.wait";

    /** Timer: from an attempt's start to its end; tags {@link #QUEUE}, {@link #OUTCOME}. */
    public static final String QUEUE_PROCESSING = "sluice.queue.processing";

    /** Gauge: a queue's rate in force, jobs per second (an adaptive rate's current one; NaN: none); tag {@link #QUEUE}. */
    public static final String QUEUE_RATE = "sluice.queue.rate";

    /** Gauge: a queue's rate as set (an adaptive rate's ceiling), jobs per second; tag {@link #QUEUE}. */
    public static final String QUEUE_RATE_CONFIGURED = "sluice.queue.rate.configured";

    /** Gauge: how many times a queue's adaptive rate was cut since it started; tag {@link #QUEUE}. */
    public static final String QUEUE_RATE_CUTS = "sluice.queue.rate.cuts";

    /**
     * Gauge: how many changes of a queue's adaptive rate were told since it started, by reason; tags {@link #QUEUE},
     * {@link #REASON}.
     */
    public static final String QUEUE_RATE_CHANGES = "sluice.queue.rate.changes";

    /** Gauge: as {@link #QUEUE_RATE}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_RATE = "sluice.queue.group.rate";

    /** Gauge: as {@link #QUEUE_RATE_CONFIGURED}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_RATE_CONFIGURED = "sluice.queue.group.rate.configured";

    /** Gauge: as {@link #QUEUE_RATE_CUTS}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_RATE_CUTS = "sluice.queue.group.rate.cuts";

    /** Gauge: as {@link #QUEUE_RATE_CHANGES}, for one group; tags {@link #QUEUE}, {@link #GROUP}, {@link #REASON}. */
    public static final String GROUP_RATE_CHANGES = "sluice.queue.group.rate.changes";

    /** Gauge: as {@link #QUEUE_JOBS}, for one group; tags {@link #QUEUE}, {@link #GROUP}, {@link #STATE}. */
    public static final String GROUP_JOBS = "sluice.queue.group.jobs";

    /** Counter: as {@link #QUEUE_JOBS_ADDED}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_JOBS_ADDED = "sluice.queue.group.jobs.added";

    /** Counter: as {@link #QUEUE_JOBS_COMPLETED}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_JOBS_COMPLETED = "sluice.queue.group.jobs.completed";

    /** Counter: as {@link #QUEUE_JOBS_FAILED}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_JOBS_FAILED = "sluice.queue.group.jobs.failed";

    /** Counter: as {@link #QUEUE_JOBS_RETRIED}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_JOBS_RETRIED = "sluice.queue.group.jobs.retried";

    /** Counter: as {@link #QUEUE_JOBS_RATE_LIMITED}, for one group; tags {@link #QUEUE}, {@link #GROUP}, {@link #SCOPE}. */
    public static final String GROUP_JOBS_RATE_LIMITED = "sluice.queue.group.jobs.rate.limited";

    /** Counter: as {@link #QUEUE_JOBS_RESCHEDULED}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_JOBS_RESCHEDULED = "sluice.queue.group.jobs.rescheduled";

    /** Timer: as {@link #QUEUE_WAIT}, for one group; tags {@link #QUEUE}, {@link #GROUP}. */
    public static final String GROUP_WAIT = "sluice.queue.group.wait";

    /** Timer: as {@link #QUEUE_PROCESSING}, for one group; tags {@link #QUEUE}, {@link #GROUP}, {@link #OUTCOME}. */
    public static final String GROUP_PROCESSING = "sluice.queue.group.processing";

    /** Tag key: the limiter's name. */
    public static final String LIMITER = "limiter";

    /**
     * Tag key: {@code allowed} or {@code denied} for a decision; how an attempt ended for processing time
     * ({@code completed}, {@code failed}, {@code timed_out}, {@code rate_limited}, {@code rescheduled}, {@code
     * interrupted}).
     */
    public static final String OUTCOME = "outcome";

    /** Tag key: what a decision rests on: {@code limit}, {@code fallback}, {@code unavailable_allowed}, {@code unavailable_denied}. */
    public static final String BASIS = "basis";

    /** Tag key: the queue's name. */
    public static final String QUEUE = "queue";

    /** Tag key: the group's name. */
    public static final String GROUP = "group";

    /** Tag key: a job state: {@code waiting}, {@code delayed}, {@code active}, {@code completed}, {@code failed}. */
    public static final String STATE = "state";

    /** Tag key: what a rate-limited job paused: {@code group} or {@code queue}. */
    public static final String SCOPE = "scope";

    /**
     * Tag key: why an adaptive rate changed: {@code cut}, {@code gradient}, {@code quota}, {@code climb}, {@code held},
     * {@code resumed}.
     */
    public static final String REASON = "reason";

    /** What each meter measures, in the words a Prometheus scrape shows as its {@code # HELP} text. */
    private static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry(LIMITER_DECISIONS, "Decisions of a limiter, by outcome and by what they rest on"),
            Map.entry(LIMITER_OUTAGES, "Times a limiter's engine became unavailable, once per outage"),
            Map.entry(LIMITER_UNAVAILABLE, "1 while a limiter's engine is unavailable, else 0"),
            Map.entry(LIMITER_KEYS_EVICTED, "Idle keys a limiter dropped from its key table"),
            Map.entry(LIMITER_KEYS_OVERFLOWED, "Decisions made against the shared overflow of a full key table"),
            Map.entry(QUEUE_JOBS, "Jobs of a queue in each state"),
            Map.entry(QUEUE_JOBS_ADDED, "Jobs added to a queue"),
            Map.entry(QUEUE_JOBS_COMPLETED, "Jobs of a queue that completed"),
            Map.entry(QUEUE_JOBS_FAILED, "Jobs of a queue that failed for good"),
            Map.entry(QUEUE_JOBS_RETRIED, "Failed attempts of a queue's jobs that will run again"),
            Map.entry(QUEUE_JOBS_RATE_LIMITED, "Jobs their processor returned as rate-limited, by what they paused"),
            Map.entry(QUEUE_JOBS_RESCHEDULED, "Jobs their processor asked to run again later"),
            Map.entry(QUEUE_WAIT, "Time from a job being ready to the start of its attempt"),
            Map.entry(QUEUE_PROCESSING, "Time from the start of an attempt to its end, by how it ended"),
            Map.entry(GROUP_JOBS, "Jobs of one group of a queue in each state"),
            Map.entry(GROUP_JOBS_ADDED, "Jobs of one group added to a queue"),
            Map.entry(GROUP_JOBS_COMPLETED, "Jobs of one group of a queue that completed"),
            Map.entry(GROUP_JOBS_FAILED, "Jobs of one group of a queue that failed for good"),
            Map.entry(GROUP_JOBS_RETRIED, "Failed attempts of one group's jobs that will run again"),
            Map.entry(
                    GROUP_JOBS_RATE_LIMITED,
                    "Jobs of one group their processor returned as rate-limited, by what they paused"),
            Map.entry(GROUP_JOBS_RESCHEDULED, "Jobs of one group their processor asked to run again later"),
            Map.entry(GROUP_WAIT, "Time from a job of one group being ready to the start of its attempt"),
            Map.entry(GROUP_PROCESSING, "Time from the start of an attempt of one group's job to its end"),
            Map.entry(QUEUE_RATE, "A queue's rate in force, in jobs per second (an adaptive rate's current one)"),
            Map.entry(QUEUE_RATE_CONFIGURED, "A queue's rate as set (an adaptive rate's ceiling), in jobs per second"),
            Map.entry(QUEUE_RATE_CUTS, "Times a queue's adaptive rate was cut since it started"),
            Map.entry(QUEUE_RATE_CHANGES, "Changes of a queue's adaptive rate told since it started, by reason"),
            Map.entry(GROUP_RATE, "One group's rate in force, in jobs per second (an adaptive rate's current one)"),
            Map.entry(
                    GROUP_RATE_CONFIGURED, "One group's rate as set (an adaptive rate's ceiling), in jobs per second"),
            Map.entry(GROUP_RATE_CUTS, "Times one group's adaptive rate was cut since it started"),
            Map.entry(GROUP_RATE_CHANGES, "Changes of one group's adaptive rate told since it started, by reason"));

    private MeterNames() {}

    /**
     * What the meter {@code name} measures.
     *
     * @throws IllegalArgumentException if {@code name} is not one of this class's meter names
     */
    static String description(String name) {
        String description = DESCRIPTIONS.get(name);
        if (description == null) {
            throw new IllegalArgumentException("no description for the meter '" + name + "'");
        }
        return description;
    }
}
