package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every contract suite shares: the engine hook, a {@link ManualClock} and an engine on it for each
 * test, and exact assertions on decisions.
 *
 * <p>Every test starts with a fresh clock at {@link #T0} and a fresh engine from {@link #newEngine(SluiceClock)};
 * engines are closed after the test. The engine must start empty: no limiter and
 * no key state left over from another test.
 *
 * <p>A test that runs longer than 30 s fails (on its own thread, so an engine stuck in a loop cannot hang the
 * suite): on virtual time, a test that waits forever is a bug.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
@ExtendWith(EnclosingContract.class)
public abstract class ContractSupport {
    /** One millisecond in nanoseconds. */
    protected static final long MS = 1_000_000L;

    /** One second in nanoseconds. */
    protected static final long SECOND = 1_000_000_000L;

    /**
     * {@link ManualClock#DEFAULT_START} (2026-01-01T00:00:00Z) in nanoseconds since the epoch: where every
     * test's clock starts. It is a whole day, so every window of a whole number of seconds starts there.
     */
    protected static final long T0 = 1_767_225_600L * SECOND;

    /** The longest span a policy may describe, on every engine: {@link dev.sluice.limit.LimitPolicy#MAX_SPAN}. */
    static final Duration POLICY_BOUND = dev.sluice.limit.LimitPolicy.MAX_SPAN;

    private final List<Sluice> engines = new ArrayList<>();

    /** The clock of this test, at {@link #T0} when the test starts. */
    protected ManualClock clock;

    /** The engine under test, on {@link #clock}. */
    protected Sluice engine;

    /** For subclasses: the contract suites. */
    protected ContractSupport() {}

    /** The {@link QueueContract} or {@link RateLimiterContract} this suite is nested in, if any; set before each test. */
    Object enclosing;

    /**
     * The one hook an engine implements: a new, empty engine whose every decision is made on {@code clock}, used
     * as given. It is a {@link ManualClock} for every test but one (which runs on {@link SluiceClock#system()} and
     * checks invariants only): sleeping on it must advance it, and tasks scheduled on it must run when it is
     * advanced. A suite nested in a {@link QueueContract} or {@link RateLimiterContract} takes that contract's; a
     * suite subclassed alone overrides it.
     *
     * @param clock the clock of every decision the engine makes
     * @return a new engine, empty and open, that the suite closes
     * @throws IllegalStateException if the suite is neither nested in a contract nor overrides this
     */
    protected Sluice newEngine(SluiceClock clock) {
        if (enclosing instanceof QueueContract queues) {
            return queues.newEngine(clock);
        }
        if (enclosing instanceof RateLimiterContract limiters) {
            return limiters.newEngine(clock);
        }
        throw new IllegalStateException(getClass().getName()
                + " has no engine to test: override newEngine(SluiceClock), or nest it in a QueueContract or a"
                + " RateLimiterContract");
    }

    /** Sets {@link #clock} to a new manual clock at {@link #T0} and {@link #engine} to a new engine on it. */
    @BeforeEach
    protected final void startEngineAtT0() {
        clock = new ManualClock();
        engine = engineOn(clock);
        assertThat(clock.nanos()).as("the manual clock starts at T0").isEqualTo(T0);
    }

    /** Closes every engine made for this test: {@link #engine} and those of {@link #engineOn}. */
    @AfterEach
    protected final void closeEngines() {
        for (Sluice created : engines) {
            created.close();
        }
        engines.clear();
    }

    /**
     * Another engine on {@code clock}, closed after the test.
     *
     * @param clock the clock of the new engine
     * @return a new engine from {@link #newEngine(SluiceClock)}
     */
    protected final Sluice engineOn(SluiceClock clock) {
        Sluice created = newEngine(clock);
        engines.add(created);
        return created;
    }

    /** One policy of every kind without leases, windows of 10 ms: for random histories of a few thousand steps. */
    protected static final List<RatePolicy> LEASELESS_POLICIES = List.of(
            TokenBucket.of(5, 2, Duration.ofMillis(10)),
            Gcra.of(3, Duration.ofMillis(9), 2),
            FixedWindow.of(4, Duration.ofMillis(10)),
            SlidingWindowCounter.of(4, Duration.ofMillis(10)),
            SlidingWindowLog.of(4, Duration.ofMillis(10)));

    /**
     * One policy of every kind, each with {@code limit} permits per second (a concurrency limit: {@code limit}
     * leases of {@code leaseTimeout}), for tests that must hold for every policy.
     *
     * @param limit the permits per second of each policy, and the leases of the concurrency limit
     * @param leaseTimeout the lease timeout of the concurrency limit
     * @return the six policies, one of each kind
     */
    protected static Stream<LimitPolicy> everyPolicy(long limit, Duration leaseTimeout) {
        Duration second = Duration.ofSeconds(1);
        return Stream.of(
                TokenBucket.of(limit, second),
                Gcra.of(limit, second, limit),
                FixedWindow.of(limit, second),
                SlidingWindowCounter.of(limit, second),
                SlidingWindowLog.of(limit, second),
                ConcurrencyLimit.of(limit, leaseTimeout));
    }

    /**
     * The limiter called {@code name} on {@code sluice}, of the kind {@code policy} is for: a rate limiter for a
     * {@link RatePolicy}, a concurrency limiter for a {@link ConcurrencyLimit}.
     *
     * @param sluice the engine
     * @param name the limiter's name
     * @param policy its policy
     * @param options its options
     * @return the limiter
     */
    public static NamedLimiter limiterOf(Sluice sluice, String name, LimitPolicy policy, LimiterOptions options) {
        return switch (policy) {
            case RatePolicy rate -> sluice.limiter(name, rate, options);
            case ConcurrencyLimit concurrency -> sluice.concurrencyLimiter(name, concurrency, options);
        };
    }

    /**
     * {@link #limiterOf(Sluice, String, LimitPolicy, LimiterOptions)} with default options.
     *
     * @param sluice the engine
     * @param name the limiter's name
     * @param policy its policy
     * @return the limiter
     */
    public static NamedLimiter limiterOf(Sluice sluice, String name, LimitPolicy policy) {
        return limiterOf(sluice, name, policy, LimiterOptions.defaults());
    }

    /**
     * Changes the policy of {@code limiter}, of either kind, to {@code policy}, of the same kind.
     *
     * @param limiter the limiter
     * @param policy its new policy: a {@link RatePolicy} for a rate limiter, a {@link ConcurrencyLimit} for a
     *     concurrency limiter
     * @throws ClassCastException if the policy is not of the limiter's kind
     */
    public static void setPolicy(NamedLimiter limiter, LimitPolicy policy) {
        switch (limiter) {
            case RateLimiter rate -> rate.setPolicy((RatePolicy) policy);
            case ConcurrencyLimiter concurrency -> concurrency.setPolicy((ConcurrencyLimit) policy);
        }
    }

    /** One step of a history played on two engines; see {@link #playTwins}. */
    protected interface TwinStep {
        /**
         * Asks the subject for {@code permits} (in whatever way the test checks) and compares its answer with
         * {@code reference}'s, which has seen the same history.
         *
         * @param reference the twin engine's limiter, asked the same way by the step
         * @param permits the permits to ask for, at least 1
         * @param random the history's random source, for any further choice the step makes
         * @param description the policy, step number and permits, for assertion messages
         */
        void play(RateLimiter reference, long permits, SplittableRandom random, String description);
    }

    /**
     * Plays {@code steps} random steps (advance both clocks by 0 to 3 ms, then ask for 1 to {@code limit}
     * permits) with {@code policy} on this test's engine and on a twin engine with its own clock. {@code
     * subject} receives this engine's limiter and returns what each step does with it.
     *
     * @param policy the policy of the limiter on both engines; its hash code seeds the history
     * @param steps the number of steps to play
     * @param subject from this engine's limiter, the step to play at each point of the history
     */
    protected final void playTwins(RatePolicy policy, int steps, Function<RateLimiter, TwinStep> subject) {
        ManualClock twinClock = new ManualClock(clock.instant());
        Sluice twin = engineOn(twinClock);
        String name = policy.getClass().getSimpleName();
        TwinStep step = subject.apply(engine.limiter(name, policy));
        RateLimiter reference = twin.limiter(name, policy);
        SplittableRandom random = new SplittableRandom(policy.hashCode());
        for (int i = 0; i < steps; i++) {
            long advance = random.nextLong(0, 3 * MS);
            clock.advanceNanos(advance);
            twinClock.advanceNanos(advance);
            long permits = random.nextLong(1, policy.limit() + 1);
            step.play(reference, permits, random, "%s, step %d: %d permits".formatted(policy, i, permits));
        }
    }

    /**
     * The outcome of {@code future}, waiting for it up to 10 s of real time: an engine that answers over the
     * network completes an asynchronous call on its own thread, after the call has returned.
     *
     * @param <T> the type of the future's value
     * @param future the future of an asynchronous call
     * @return the value {@code future} completed with
     * @throws AssertionError if it completed exceptionally, did not complete in 10 s, or the wait was
     *     interrupted
     */
    protected static <T> T settled(CompletableFuture<T> future) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + future, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("the future did not complete with a value: " + e, e);
        }
    }

    /**
     * Waits, up to 10 s of real time, until {@code condition} holds: an asynchronous wait on an engine that
     * answers over the network schedules its next attempt on the clock only once the engine has answered the
     * last one, so a test moves the clock only after that.
     *
     * @param condition the condition to poll, every millisecond
     * @throws org.awaitility.core.ConditionTimeoutException if it does not hold within 10 s
     */
    protected static void eventually(BooleanSupplier condition) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(1))
                .until(condition::getAsBoolean);
    }

    /**
     * Waits, as {@link #eventually}, until {@code tasks} tasks are scheduled on this test's clock.
     *
     * @param tasks the number of pending tasks to wait for
     */
    protected final void awaitScheduled(int tasks) {
        eventually(() -> clock.pendingTasks() == tasks);
    }

    /**
     * A manual clock at {@code instant}, such as {@code "2026-01-01T00:00:00.750Z"}.
     *
     * @param instant an instant in ISO-8601 form, as {@link Instant#parse} reads it
     * @return a new manual clock at that instant
     */
    protected static ManualClock clockAt(String instant) {
        return new ManualClock(Instant.parse(instant));
    }

    /**
     * An allowed decision, to compare with {@link #assertDecision}.
     *
     * @param limiter the limiter's name
     * @param limit the policy's limit
     * @param remaining the permits left after the call
     * @param resetAtNanos when the limiter is back to full, in nanoseconds since the epoch
     * @return the decision, with no retry-after and no lease
     */
    protected static Decision allowed(String limiter, long limit, long remaining, long resetAtNanos) {
        return new Decision(true, remaining, limit, 0, resetAtNanos, limiter, Lease.none());
    }

    /**
     * A denied decision, to compare with {@link #assertDecision}.
     *
     * @param limiter the limiter's name
     * @param limit the policy's limit
     * @param remaining the permits left
     * @param retryAfterNanos how long until the same call can be allowed, in nanoseconds
     * @param resetAtNanos when the limiter is back to full, in nanoseconds since the epoch
     * @return the decision, with no lease
     */
    protected static Decision denied(
            String limiter, long limit, long remaining, long retryAfterNanos, long resetAtNanos) {
        return new Decision(false, remaining, limit, retryAfterNanos, resetAtNanos, limiter, Lease.none());
    }

    /**
     * Asserts every field of {@code actual} but its lease equals {@code expected}.
     *
     * @param actual the decision an engine made
     * @param expected the decision it should have made; its lease is ignored as well
     */
    protected static void assertDecision(Decision actual, Decision expected) {
        assertThat(withoutLease(actual)).isEqualTo(withoutLease(expected));
    }

    /**
     * {@code decision} with {@link Lease#none()} instead of its lease, for comparing the numbers only.
     *
     * @param decision any decision
     * @return a copy of {@code decision} with {@link Lease#none()}
     */
    protected static Decision withoutLease(Decision decision) {
        return new Decision(
                decision.allowed(),
                decision.remaining(),
                decision.limit(),
                decision.retryAfterNanos(),
                decision.resetAtNanos(),
                decision.limiter(),
                Lease.none());
    }

    /**
     * Asserts that {@code call} throws an {@link IllegalArgumentException} whose message contains every one
     * of {@code fragments} (typically the bad value and the allowed range).
     *
     * @param call the call that must be rejected
     * @param fragments the texts the message must contain
     */
    protected static void assertRejected(ThrowingCallable call, String... fragments) {
        assertThatThrownBy(call)
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    /** A listener that records every event, in order, as text; decisions are kept as well. */
    protected static final class RecordingListener implements LimiterListener {
        /** The events, such as {@code "allowed api k 1"}, {@code "evicted api k"} or {@code "full api k"}. */
        public final List<String> events = new CopyOnWriteArrayList<>();

        /** The decisions passed to onAllowed and onDenied, in order. */
        public final List<Decision> decisions = new CopyOnWriteArrayList<>();

        /** A listener that has recorded nothing yet. */
        public RecordingListener() {}

        @Override
        public void onAllowed(String limiter, String key, long permits, Decision decision) {
            events.add("allowed " + limiter + " " + key + " " + permits);
            decisions.add(decision);
        }

        @Override
        public void onDenied(String limiter, String key, long permits, Decision decision) {
            events.add("denied " + limiter + " " + key + " " + permits);
            decisions.add(decision);
        }

        @Override
        public void onEvicted(String limiter, String key) {
            events.add("evicted " + limiter + " " + key);
        }

        @Override
        public void onKeyTableFull(String limiter, String key) {
            events.add("full " + limiter + " " + key);
        }
    }
}
