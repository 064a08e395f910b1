package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The behavioural contract of job queues, for any {@link Sluice} engine: subclass it, implement {@link
 * #newEngine(SluiceClock)}, and every suite below runs against the engine.
 *
 * <pre>{@code
 * class RedisQueueContractTest extends QueueContract {
 *   protected Sluice newEngine(SluiceClock clock) { return RedisSluice.create(redis, uniquePrefix(), clock); }
 * }
 * }</pre>
 *
 * <p>Each nested suite takes this contract's engine hooks (a suite nested in a subclass of it too), and is also an
 * abstract class of its own ({@link QueueJobsContract}, {@link
 * QueueRetryContract}, ...) that can be subclassed alone. The suites use the public API only ({@code
 * dev.sluice.queue}, {@code dev.sluice.limit}, {@code dev.sluice.time}).
 *
 * <p>Most tests run on virtual time: a {@link ManualClock} at {@link ContractSupport#T0}, moved only by the
 * test (or by a processor standing for slow work), with manual workers run by {@code runDue()}; some use a
 * started worker on the manual clock and wait with Awaitility. {@link QueueConcurrencyContract} and one test of
 * {@link QueueGroupsContract} run on {@link SluiceClock#system()} and check invariants only.
 */
public abstract class QueueContract {
    /** For subclasses, one per engine. */
    protected QueueContract() {}

    /**
     * A new, empty engine (no queue, no job left from another test) on {@code clock}, as given: a {@link
     * ManualClock} for most tests, {@link SluiceClock#system()} for the real-thread ones. Tasks the engine schedules
     * on a manual clock must run when it is advanced.
     *
     * @param clock the clock of the engine
     * @return a new engine, empty and open, that the suite closes
     */
    protected abstract Sluice newEngine(SluiceClock clock);

    /**
     * Where the engine differs from the in-memory one, as the specification allows.
     *
     * @return {@link EngineDifferences#none()} unless overridden
     */
    protected EngineDifferences differences() {
        return EngineDifferences.none();
    }

    /** Adding and reading jobs: every field, counts, pages by state. */
    @Nested
    @DisplayName("adding and reading jobs: every field, counts, pages by state")
    class Jobs extends QueueJobsContract {}

    /** Pause, resume, remove, retry, clean, drain. */
    @Nested
    @DisplayName("pause, resume, remove, retry, clean, drain")
    class Management extends QueueManagementContract {}

    /** De-duplication by job id, also after removal. */
    @Nested
    @DisplayName("de-duplication by job id, also after removal")
    class Deduplication extends QueueDeduplicationContract {}

    /** Failures: attempts, backoff, unrecoverable, null results. */
    @Nested
    @DisplayName("failures: attempts, backoff, unrecoverable, null results")
    class Retries extends QueueRetryContract {}

    /** Timeouts on the engine clock: TIMED_OUT, interrupted, retried. */
    @Nested
    @DisplayName("timeouts on the engine clock: TIMED_OUT, interrupted, retried")
    class Timeouts extends QueueTimeoutContract {}

    /** Retention of finished jobs: all, none, last n, for an age. */
    @Nested
    @DisplayName("retention of finished jobs: all, none, last n, for an age")
    class Retention extends QueueRetentionContract {}

    /** Result.rateLimited: group or queue pause, no attempt used. */
    @Nested
    @DisplayName("Result.rateLimited: group or queue pause, no attempt used")
    class RateLimitedResults extends QueueRateLimitedResultContract {}

    /** After a pause by a rate-limited result, a rate ramps back up from a quarter. */
    @Nested
    @DisplayName("recovery: after a rate-limited pause, a rate ramps back up from a quarter")
    class Recovery extends QueueRecoveryContract {}

    /** Adaptive rates: cut once per episode, enforced at once, climbing back, told and shown; overloaded jobs. */
    @Nested
    @DisplayName("adaptive rates: cut once per episode, enforced at once, climbing back, told; overloaded jobs")
    class AdaptiveRates extends QueueAdaptiveRateContract {}

    /** Adaptive rates' other signals: quotas, timeouts, processing times, gauges. */
    @Nested
    @DisplayName("adaptive rates' other signals: quotas, timeouts, processing times, gauges")
    class AdaptiveSignals extends QueueAdaptiveSignalsContract {}

    /** Queue and group rates and concurrency, changed at run time. */
    @Nested
    @DisplayName("queue and group rates and concurrency, changed at run time")
    class Limits extends QueueLimitsContract {}

    /** Fairness: groups round-robin, priority within a group. */
    @Nested
    @DisplayName("fairness: groups round-robin, priority within a group")
    class Fairness extends QueueFairnessContract {}

    /** Repeatable jobs: cron, fixed rate, fixed delay, bounds, re-registration. */
    @Nested
    @DisplayName("repeatable jobs: cron, fixed rate, fixed delay, bounds, re-registration")
    class Repeatables extends QueueRepeatContract {}

    /** Bounded queue: reject or block on the engine clock. */
    @Nested
    @DisplayName("maxQueued: a full queue rejects, or blocks on the engine clock")
    class MaxQueued extends QueueMaxQueuedContract {}

    /** Listener events in order, after the change. */
    @Nested
    @DisplayName("listener events in order, after the change")
    class Listeners extends QueueListenerContract {}

    /** Metrics told of this process's changes, with the engine's times. */
    @Nested
    @DisplayName("metrics told of this process's changes, with the engine's times")
    class Metrics extends QueueMetricsContract {}

    /** Statistics per queue and per group. */
    @Nested
    @DisplayName("statistics per queue and per group")
    class Stats extends QueueStatsContract {}

    /** Workers: manual, started, close with a deadline. */
    @Nested
    @DisplayName("workers: manual, started, close with a deadline")
    class Workers extends QueueWorkerContract {}

    /** Groups created on use, released when idle, nothing lost. */
    @Nested
    @DisplayName("groups created on use, released when idle, nothing lost")
    class Groups extends QueueGroupsContract {}

    /** Per-group counts as jobs move; jobs due together in add order; paused groups back in order. */
    @Nested
    @DisplayName("per-group counts as jobs move; jobs due together in add order; paused groups back in order")
    class GroupBookkeeping extends QueueGroupBookkeepingContract {}

    /** Registering a repeatable again: the same one is kept, another template replaces its pending run. */
    @Nested
    @DisplayName("registering a repeatable again: the same one is kept, another template replaces its pending run")
    class ReRegistration extends QueueReRegistrationContract {}

    /** Bad input: clear messages, nothing changed. */
    @Nested
    @DisplayName("bad input: clear messages, nothing changed")
    class BadInput extends QueueBadInputContract {}

    /** The bounds every engine applies alike: payload size, a policy's longest span, no group. */
    @Nested
    @DisplayName("the bounds every engine applies alike: payload size, a policy's longest span, no group")
    class Bounds extends QueueBoundsContract {}

    /** addAsync and addBulkAsync: the caller never blocks */
    @Nested
    @DisplayName("addAsync and addBulkAsync: the caller never blocks")
    class AsyncAdds extends QueueAsyncContract {}

    /** Boundaries in time: at the instant a state ends, the new state holds. */
    @Nested
    @DisplayName("boundaries in time: at the instant a state ends, the new state holds")
    class TimeBoundaries extends QueueTimeBoundaryContract {}

    /** whenFinished and awaitIdle: outcomes with results, idle on the engine clock */
    @Nested
    @DisplayName("whenFinished and awaitIdle: outcomes with results, idle on the engine clock")
    class Awaiting extends QueueAwaitContract {}

    /** pages of jobs by cursor, which hold their place while jobs move */
    @Nested
    @DisplayName("pages of jobs by cursor, holding their place while jobs move")
    class Cursors extends QueueCursorContract {}

    /** listing queues, their workers, promoting a delayed job, obliterating a queue */
    @Nested
    @DisplayName("administration: queues listed, workers, promote, obliterate")
    class Administration extends QueueAdministrationContract {}

    /** results of any type, stored by a codec */
    @Nested
    @DisplayName("results of any type, stored by a codec")
    class ResultCodecs extends QueueResultCodecContract {}

    /** Result.runAgainAfter: delayed again, no attempt used, no pause */
    @Nested
    @DisplayName("Result.runAgainAfter: delayed again, no attempt used, no pause")
    class RunAgain extends QueueRunAgainContract {}

    /** retry(id, state): completed jobs as well as failed ones */
    @Nested
    @DisplayName("retry(id, state): completed jobs as well as failed ones")
    class RetryFinished extends QueueRetryFinishedContract {}

    /** progress: 0 to 100, checked at the call */
    @Nested
    @DisplayName("progress: 0 to 100, checked at the call")
    class Progress extends QueueProgressContract {}

    /** Payloads the codec cannot decode: the job fails, nothing else is disturbed. */
    @Nested
    @DisplayName("payloads the codec cannot decode: the job fails, nothing else is disturbed")
    class Codecs extends QueueCodecContract {}

    /** After the engine closes: every use of a queue or worker refuses; what it is stays readable. */
    @Nested
    @DisplayName("after the engine closes: every use of a queue or worker refuses; what it is stays readable")
    class ClosedEngine extends QueueClosedEngineContract {}

    /** Started workers woken when work appears, blocked producers let in when room appears. */
    @Nested
    @DisplayName("started workers woken when work appears, blocked producers let in when room appears")
    class Wakes extends QueueWakeContract {}

    /** How calls and attempts end: events told at once, idle exactly, running jobs in start order. */
    @Nested
    @DisplayName("how calls and attempts end: events told at once, idle exactly, running jobs in start order")
    class Outcomes extends QueueOutcomeContract {}

    /** Real threads: exactly once, counts add up, close loses nothing. */
    @Nested
    @DisplayName("real threads: exactly once, counts add up, close loses nothing")
    class Concurrency extends QueueConcurrencyContract {}
}
