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
 * <p>Each nested suite is also an abstract class of its own ({@link QueueJobsContract}, {@link
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
    class Jobs extends QueueJobsContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Pause, resume, remove, retry, clean, drain. */
    @Nested
    @DisplayName("pause, resume, remove, retry, clean, drain")
    class Management extends QueueManagementContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** De-duplication by job id, also after removal. */
    @Nested
    @DisplayName("de-duplication by job id, also after removal")
    class Deduplication extends QueueDeduplicationContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Failures: attempts, backoff, unrecoverable, null results. */
    @Nested
    @DisplayName("failures: attempts, backoff, unrecoverable, null results")
    class Retries extends QueueRetryContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Timeouts on the engine clock: TIMED_OUT, interrupted, retried. */
    @Nested
    @DisplayName("timeouts on the engine clock: TIMED_OUT, interrupted, retried")
    class Timeouts extends QueueTimeoutContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Retention of finished jobs: all, none, last n, for an age. */
    @Nested
    @DisplayName("retention of finished jobs: all, none, last n, for an age")
    class Retention extends QueueRetentionContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Result.rateLimited: group or queue pause, no attempt used. */
    @Nested
    @DisplayName("Result.rateLimited: group or queue pause, no attempt used")
    class RateLimitedResults extends QueueRateLimitedResultContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Queue and group rates and concurrency, changed at run time. */
    @Nested
    @DisplayName("queue and group rates and concurrency, changed at run time")
    class Limits extends QueueLimitsContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Fairness: groups round-robin, priority within a group. */
    @Nested
    @DisplayName("fairness: groups round-robin, priority within a group")
    class Fairness extends QueueFairnessContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Repeatable jobs: cron, fixed rate, fixed delay, bounds, re-registration. */
    @Nested
    @DisplayName("repeatable jobs: cron, fixed rate, fixed delay, bounds, re-registration")
    class Repeatables extends QueueRepeatContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Bounded queue: reject or block on the engine clock. */
    @Nested
    @DisplayName("maxWaiting: a full queue rejects, or blocks on the engine clock")
    class MaxWaiting extends QueueMaxWaitingContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Listener events in order, after the change. */
    @Nested
    @DisplayName("listener events in order, after the change")
    class Listeners extends QueueListenerContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Metrics told of this process's changes, with the engine's times. */
    @Nested
    @DisplayName("metrics told of this process's changes, with the engine's times")
    class Metrics extends QueueMetricsContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Statistics per queue and per group. */
    @Nested
    @DisplayName("statistics per queue and per group")
    class Stats extends QueueStatsContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Workers: manual, started, close with a deadline. */
    @Nested
    @DisplayName("workers: manual, started, close with a deadline")
    class Workers extends QueueWorkerContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Groups created on use, released when idle, nothing lost. */
    @Nested
    @DisplayName("groups created on use, released when idle, nothing lost")
    class Groups extends QueueGroupsContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Per-group counts as jobs move; jobs due together in add order; paused groups back in order. */
    @Nested
    @DisplayName("per-group counts as jobs move; jobs due together in add order; paused groups back in order")
    class GroupBookkeeping extends QueueGroupBookkeepingContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Registering a repeatable again: the same one is kept, another template replaces its pending run. */
    @Nested
    @DisplayName("registering a repeatable again: the same one is kept, another template replaces its pending run")
    class ReRegistration extends QueueReRegistrationContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Bad input: clear messages, nothing changed. */
    @Nested
    @DisplayName("bad input: clear messages, nothing changed")
    class BadInput extends QueueBadInputContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** addAsync and addBulkAsync: the caller never blocks */
    @Nested
    @DisplayName("addAsync and addBulkAsync: the caller never blocks")
    class AsyncAdds extends QueueAsyncContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Boundaries in time: at the instant a state ends, the new state holds. */
    @Nested
    @DisplayName("boundaries in time: at the instant a state ends, the new state holds")
    class TimeBoundaries extends QueueTimeBoundaryContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** whenFinished and awaitIdle: outcomes with results, idle on the engine clock */
    @Nested
    @DisplayName("whenFinished and awaitIdle: outcomes with results, idle on the engine clock")
    class Awaiting extends QueueAwaitContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** results of any type, stored by a codec */
    @Nested
    @DisplayName("results of any type, stored by a codec")
    class ResultCodecs extends QueueResultCodecContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Result.runAgainAfter: delayed again, no attempt used, no pause */
    @Nested
    @DisplayName("Result.runAgainAfter: delayed again, no attempt used, no pause")
    class RunAgain extends QueueRunAgainContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** retry(id, state): completed jobs as well as failed ones */
    @Nested
    @DisplayName("retry(id, state): completed jobs as well as failed ones")
    class RetryFinished extends QueueRetryFinishedContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** progress: 0 to 100, checked at the call */
    @Nested
    @DisplayName("progress: 0 to 100, checked at the call")
    class Progress extends QueueProgressContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Payloads the codec cannot decode: the job fails, nothing else is disturbed. */
    @Nested
    @DisplayName("payloads the codec cannot decode: the job fails, nothing else is disturbed")
    class Codecs extends QueueCodecContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** After the engine closes: every use of a queue or worker refuses; what it is stays readable. */
    @Nested
    @DisplayName("after the engine closes: every use of a queue or worker refuses; what it is stays readable")
    class ClosedEngine extends QueueClosedEngineContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Started workers woken when work appears, blocked producers let in when room appears. */
    @Nested
    @DisplayName("started workers woken when work appears, blocked producers let in when room appears")
    class Wakes extends QueueWakeContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** How calls and attempts end: events told at once, idle exactly, running jobs in start order. */
    @Nested
    @DisplayName("how calls and attempts end: events told at once, idle exactly, running jobs in start order")
    class Outcomes extends QueueOutcomeContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }

    /** Real threads: exactly once, counts add up, close loses nothing. */
    @Nested
    @DisplayName("real threads: exactly once, counts add up, close loses nothing")
    class Concurrency extends QueueConcurrencyContract {
        @Override
        protected Sluice newEngine(SluiceClock clock) {
            return QueueContract.this.newEngine(clock);
        }

        @Override
        protected EngineDifferences differences() {
            return QueueContract.this.differences();
        }
    }
}
