package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Properties of every policy, checked by jqwik on random histories of one key on virtual time: a history is
 * a list of steps, each moving the {@link ManualClock} by 0 to a few windows (or intervals, or lease
 * timeouts) of nanoseconds and asking for 1 to {@code limit} permits, or, for a concurrency limit, releasing
 * a lease granted earlier.
 *
 * <p>Subclass it and implement {@link #newEngine(SluiceClock)}, as for {@link RateLimiterContract}. Policies
 * use windows of a few thousand nanoseconds so that histories cross many windows.
 */
public abstract class RateLimiterProperties {
    private static final String KEY = "k";

    /** A nanosecond span longer than any retry-after of the generated policies. */
    private static final long HORIZON = PolicyModel.HORIZON;

    /** For subclasses, one per engine. */
    protected RateLimiterProperties() {}

    /**
     * A new, empty engine deciding on {@code clock}.
     *
     * @param clock the clock of every decision the engine makes
     * @return a new engine, empty and open, that the suite closes
     */
    protected abstract Sluice newEngine(SluiceClock clock);

    // ---------------------------------------------------------------------------------------------------------
    // The properties

    /** (a) A sliding log is exact: no span {@code [t, t + window)} ever holds more than the limit. */
    @Property(tries = 300)
    void slidingLogNeverGrantsMoreThanTheLimitInAnyWindow(@ForAll("slidingLogs") Scenario scenario) {
        SlidingWindowLog policy = (SlidingWindowLog) scenario.policy();
        long window = policy.window().toNanos();
        try (Run run = run(scenario, false)) {
            for (long[] grant : run.grants) {
                assertThat(run.grantedIn(grant[0], grant[0] + window))
                        .as("permits granted in [%d, %d + window)", grant[0], grant[0])
                        .isLessThanOrEqualTo(policy.limit());
            }
        }
    }

    /** (b) A fixed window holds at most the limit per aligned window, and at most twice in any sliding one. */
    @Property(tries = 300)
    void fixedWindowHoldsTheLimitPerAlignedWindowAndAtMostTwiceInAnySlidingOne(
            @ForAll("fixedWindows") Scenario scenario) {
        FixedWindow policy = (FixedWindow) scenario.policy();
        try (Run run = run(scenario, false)) {
            assertWindowBounds(run, policy.limit(), policy.window().toNanos());
        }
    }

    /** (b) So does a sliding window counter. */
    @Property(tries = 300)
    void slidingCounterHoldsTheLimitPerAlignedWindowAndAtMostTwiceInAnySlidingOne(
            @ForAll("slidingCounters") Scenario scenario) {
        SlidingWindowCounter policy = (SlidingWindowCounter) scenario.policy();
        try (Run run = run(scenario, false)) {
            assertWindowBounds(run, policy.limit(), policy.window().toNanos());
        }
    }

    /**
     * (c) A token bucket of capacity {@code C} refilled one permit per interval {@code I} grants at most
     * {@code C + floor((t2 − t1) / I)} permits at instants within any closed span {@code [t1, t2]}: a grant at
     * {@code t} leaves the bucket's "full again" time at most {@code t + C × I}, and every permit pushes it
     * {@code I} later, starting no earlier than {@code t1}; so {@code t1 + n × I ≤ t2 + C × I}.
     */
    @Property(tries = 300)
    void tokenBucketGrantsAtMostCapacityPlusOnePerIntervalInAnySpan(@ForAll("tokenBuckets") Scenario scenario) {
        TokenBucket policy = (TokenBucket) scenario.policy();
        try (Run run = run(scenario, false)) {
            assertRateBound(run, policy.capacity(), policy.nanosPerPermit());
        }
    }

    /** (c) The same bound for GCRA, with {@code burst} for the capacity. */
    @Property(tries = 300)
    void gcraGrantsAtMostBurstPlusOnePerIntervalInAnySpan(@ForAll("gcras") Scenario scenario) {
        Gcra policy = (Gcra) scenario.policy();
        try (Run run = run(scenario, false)) {
            assertRateBound(run, policy.burst(), policy.nanosPerPermit());
        }
    }

    /**
     * (e) A concurrency limit never has more than {@code maxConcurrent} permits held at once, counting a lease
     * as held from its grant until it is released (release returned true) or expires, whichever is first.
     */
    @Property(tries = 300)
    void concurrencyLimitNeverHoldsMoreThanTheMaximum(@ForAll("concurrencyLimits") Scenario scenario) {
        long max = scenario.policy().limit();
        long timeout = ((ConcurrencyLimit) scenario.policy()).leaseTimeout().toNanos();
        try (Run run = run(scenario, false)) {
            assertLeaseBound(run, max, timeout);
        }
    }

    private static void assertLeaseBound(Run run, long max, long timeout) {
        for (HeldLease granted : run.leases) {
            long at = granted.grantedAt;
            long held = run.leases.stream()
                    .filter(l -> l.grantedAt <= at && l.expiresAt > at && l.releasedAt > at)
                    .mapToLong(l -> l.permits)
                    .sum();
            assertThat(held).as("permits held at %d", at).isLessThanOrEqualTo(max);
            assertThat(granted.expiresAt)
                    .as("expiry of the lease granted at %d", at)
                    .isEqualTo(at + timeout);
        }
        assertThat(run.failedReleases)
                .as("releases of live leases that returned false")
                .isZero();
    }

    /**
     * (d) Whenever a request is denied with retry-after {@code r} and nothing else arrives, the same request is
     * denied {@code r − 1} ns later and allowed {@code r} ns later. Every denial of these histories is probed
     * so.
     */
    @Property(tries = 500)
    void deniedRequestIsDeniedOneNanosecondBeforeItsRetryAfterAndAllowedAtIt(@ForAll("anyPolicy") Scenario scenario) {
        try (Run run = run(scenario.probingEveryDenial(), false)) {
            assertThat(run.probes).as("denials probed").isEqualTo(run.denials);
        }
    }

    /**
     * Every decision (allowed, remaining, limit, retry-after, reset-at) equals the one of a reference model
     * written from the policies' documentation.
     */
    @Property(tries = 500)
    void decisionsMatchTheReferenceModel(@ForAll("anyPolicy") Scenario scenario) {
        try (Run run = run(scenario, true)) {
            assertThat(run.grants.size() + run.denials + run.releases)
                    .isGreaterThanOrEqualTo(scenario.steps().size());
        }
    }

    /**
     * {@code remaining} is exact: right after a decision, {@code remaining} permits are granted at once and
     * {@code remaining + 1} are not.
     */
    @Property(tries = 300)
    void remainingIsExactlyWhatCanBeTakenAtOnce(@ForAll("anyPolicy") Scenario scenario) {
        long limit = scenario.policy().limit();
        try (Run run = run(scenario, false)) {
            assertRemainingIsExact(run, limit);
        }
    }

    /**
     * (e) A peek is the decision the same request then gets, and a refund of {@code n} permits lifts what the
     * key has available by at most {@code n}, never above the limit (a concurrency limiter has no refunds).
     */
    @Property(tries = 300)
    void peeksForeseeDecisionsAndRefundsNeverLiftAKeyAboveItsLimit(@ForAll("anyPolicy") Scenario scenario) {
        LimitPolicy policy = scenario.policy();
        long limit = policy.limit();
        ManualClock clock = new ManualClock(ManualClock.DEFAULT_START.plusNanos(scenario.startOffsetNanos()));
        try (Sluice engine = newEngine(clock)) {
            NamedLimiter limiter = ContractSupport.limiterOf(engine, "prop", policy);
            boolean refund = false;
            for (Step step : scenario.steps()) {
                clock.advanceNanos(step.advanceNanos());
                Decision peeked = limiter.peek(KEY, step.permits());
                assertThat(ContractSupport.withoutLease(limiter.tryAcquire(KEY, step.permits())))
                        .as("%d permits after a peek", step.permits())
                        .isEqualTo(peeked);
                refund = !refund;
                if (refund && limiter instanceof RateLimiter rate) {
                    long before = limiter.available(KEY);
                    long permits = 1 + Math.floorMod(step.advanceNanos(), limit);
                    rate.refund(KEY, permits);
                    assertThat(limiter.available(KEY))
                            .as("available after a refund of %d, %d before", permits, before)
                            .isBetween(before, Math.min(limit, before + permits));
                }
            }
        }
    }

    private static void assertRemainingIsExact(Run run, long limit) {
        Decision last = run.acquire(1);
        long remaining = last.remaining();
        assertThat(remaining).isBetween(0L, limit);
        if (remaining < limit) {
            assertThat(run.acquire(remaining + 1).denied())
                    .as("%d permits, one more than remaining", remaining + 1)
                    .isTrue();
        }
        if (remaining > 0) {
            Decision taken = run.acquire(remaining);
            assertThat(taken.allowed())
                    .as("%d permits, all that remained", remaining)
                    .isTrue();
            assertThat(taken.remaining()).isZero();
        }
    }

    private static void assertWindowBounds(Run run, long limit, long window) {
        Map<Long, Long> perAlignedWindow = new HashMap<>();
        for (long[] grant : run.grants) {
            perAlignedWindow.merge(Math.floorDiv(grant[0], window), grant[1], Long::sum);
        }
        perAlignedWindow.forEach((index, granted) ->
                assertThat(granted).as("permits in aligned window #%d", index).isLessThanOrEqualTo(limit));
        for (long[] grant : run.grants) {
            assertThat(run.grantedIn(grant[0], grant[0] + window))
                    .as("permits in the sliding window from %d", grant[0])
                    .isLessThanOrEqualTo(2 * limit);
        }
    }

    private static void assertRateBound(Run run, long capacity, long interval) {
        List<long[]> grants = run.grants; // in time order
        for (int i = 0; i < grants.size(); i++) {
            if (i > 0 && grants.get(i - 1)[0] == grants.get(i)[0]) {
                continue; // spans start at the first grant of an instant
            }
            long from = grants.get(i)[0];
            long granted = 0;
            for (int j = i; j < grants.size(); j++) {
                granted += grants.get(j)[1];
                long to = grants.get(j)[0];
                if (j + 1 == grants.size() || grants.get(j + 1)[0] != to) {
                    assertThat(granted)
                            .as("permits granted in [%d, %d]", from, to)
                            .isLessThanOrEqualTo(capacity + (to - from) / interval);
                }
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Histories

    /** One step of a history. */
    record Step(long advanceNanos, long permits, int release) {
        /** Whether this step releases a lease (concurrency limits only) instead of asking for permits. */
        boolean releases() {
            return release >= 0;
        }
    }

    /** A policy, where the clock starts, and what happens to the key. */
    record Scenario(LimitPolicy policy, long startOffsetNanos, List<Step> steps, boolean probeEveryDenial) {
        Scenario probingEveryDenial() {
            return new Scenario(policy, startOffsetNanos, steps, true);
        }

        @Override
        public String toString() {
            return policy + " from DEFAULT_START + " + startOffsetNanos + " ns, probe every denial: " + probeEveryDenial
                    + ", steps " + steps;
        }
    }

    /** A lease granted in a run, with what the run did to it. */
    static final class HeldLease {
        final Lease lease;
        final long grantedAt;
        final long permits;
        final long expiresAt;
        long releasedAt = Long.MAX_VALUE;

        HeldLease(Lease lease, long grantedAt, long permits) {
            this.lease = lease;
            this.grantedAt = grantedAt;
            this.permits = permits;
            this.expiresAt = lease.expiresAtNanos();
        }
    }

    /**
     * Plays a scenario on a fresh engine, probing every other denial (every denial with {@link
     * Scenario#probeEveryDenial()}) as property (d) says; the caller closes the run, which is closed here if
     * playing fails.
     */
    private Run run(Scenario scenario, boolean checkModel) {
        Run run = new Run(scenario, checkModel);
        try {
            boolean probeNext = true;
            for (Step step : scenario.steps()) {
                run.clock.advanceNanos(step.advanceNanos());
                if (step.releases() && scenario.policy() instanceof ConcurrencyLimit) {
                    run.release(step.release());
                    run.releases++;
                    continue;
                }
                Decision decision = run.acquire(step.permits());
                run.denials += decision.denied() ? 1 : 0;
                // probe every other denial only, so that histories also hold denials followed by anything
                if (decision.denied() && (scenario.probeEveryDenial() || (probeNext = !probeNext))) {
                    run.probe(decision, step.permits());
                }
            }
            return run;
        } catch (RuntimeException | AssertionError failure) {
            run.close();
            throw failure;
        }
    }

    /** A history being played: the engine, the grants it made, and optionally the reference model. */
    private final class Run implements AutoCloseable {
        final ManualClock clock;
        final Sluice engine;
        final NamedLimiter limiter;
        final PolicyModel model;
        final List<long[]> grants = new ArrayList<>(); // {time, permits}
        final List<HeldLease> leases = new ArrayList<>();
        final long start;
        int probes;
        int denials;
        int releases;
        int failedReleases;

        Run(Scenario scenario, boolean checkModel) {
            clock = new ManualClock(ManualClock.DEFAULT_START.plusNanos(scenario.startOffsetNanos()));
            start = clock.nanos();
            engine = newEngine(clock);
            limiter = ContractSupport.limiterOf(engine, "prop", scenario.policy());
            model = checkModel ? PolicyModel.of(scenario.policy()) : null;
        }

        Decision acquire(long permits) {
            long now = clock.nanos();
            Decision expected = model == null ? null : model.decide(now, permits);
            Decision actual = limiter.tryAcquire(KEY, permits);
            if (expected != null) {
                assertThat(ContractSupport.withoutLease(actual))
                        .as("%d permits at start + %d ns", permits, now - start)
                        .isEqualTo(expected);
            }
            assertThat(actual.limit()).isEqualTo(limiter.policy().limit());
            if (actual.allowed()) {
                assertThat(actual.retryAfterNanos()).isZero();
                grants.add(new long[] {now, permits});
                if (limiter.policy() instanceof ConcurrencyLimit) {
                    assertThat(actual.lease()).isNotSameAs(Lease.none());
                    leases.add(new HeldLease(actual.lease(), now, permits));
                }
            } else {
                assertThat(actual.retryAfterNanos())
                        .as("retry-after of a denial")
                        .isPositive();
                assertThat(actual.lease()).isSameAs(Lease.none());
            }
            assertThat(actual.resetAtNanos()).isGreaterThanOrEqualTo(now);
            return actual;
        }

        void probe(Decision denial, long permits) {
            probes++;
            long before = clock.nanos();
            clock.advanceNanos(denial.retryAfterNanos() - 1);
            assertThat(acquire(permits).denied())
                    .as(
                            "%d permits 1 ns before the retry-after %d ns reported at start + %d ns",
                            permits, denial.retryAfterNanos(), before - start)
                    .isTrue();
            clock.advanceNanos(1);
            assertThat(acquire(permits).allowed())
                    .as(
                            "%d permits at the retry-after %d ns reported at start + %d ns",
                            permits, denial.retryAfterNanos(), before - start)
                    .isTrue();
        }

        void release(int seed) {
            if (leases.isEmpty()) {
                return;
            }
            HeldLease held = leases.get(seed % leases.size());
            long now = clock.nanos();
            boolean live = held.releasedAt == Long.MAX_VALUE && held.expiresAt > now;
            boolean released = held.lease.release();
            if (model != null) {
                assertThat(released)
                        .as("release of a lease that is %s", live ? "live" : "released or expired")
                        .isEqualTo(live);
                if (live) {
                    model.release(held.grantedAt, held.permits, now);
                }
            }
            if (released) {
                assertThat(live)
                        .as("a released or expired lease released again")
                        .isTrue();
                held.releasedAt = now;
            } else if (live) {
                failedReleases++;
            }
        }

        long grantedIn(long fromInclusive, long toExclusive) {
            return grants.stream()
                    .filter(g -> g[0] >= fromInclusive && g[0] < toExclusive)
                    .mapToLong(g -> g[1])
                    .sum();
        }

        @Override
        public void close() {
            engine.close();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Generators

    @Provide
    Arbitrary<Scenario> tokenBuckets() {
        return Combinators.combine(
                        Arbitraries.longs().between(1, 6),
                        Arbitraries.longs().between(1, 4),
                        Arbitraries.longs().between(0, 3000))
                .flatAs((capacity, tokens, extraPeriod) -> {
                    TokenBucket policy = TokenBucket.of(capacity, tokens, Duration.ofNanos(tokens + extraPeriod));
                    return scenarios(policy, policy.nanosPerPermit() * 2);
                });
    }

    @Provide
    Arbitrary<Scenario> gcras() {
        return Combinators.combine(
                        Arbitraries.longs().between(1, 4),
                        Arbitraries.longs().between(0, 3000),
                        Arbitraries.longs().between(1, 6))
                .flatAs((rate, extraPeriod, burst) -> {
                    Gcra policy = Gcra.of(rate, Duration.ofNanos(rate + extraPeriod), burst);
                    return scenarios(policy, policy.nanosPerPermit() * 2);
                });
    }

    @Provide
    Arbitrary<Scenario> fixedWindows() {
        return windows().flatMap(w -> scenarios(FixedWindow.of(w.get1(), Duration.ofNanos(w.get2())), w.get2()));
    }

    @Provide
    Arbitrary<Scenario> slidingCounters() {
        return windows()
                .flatMap(w -> scenarios(SlidingWindowCounter.of(w.get1(), Duration.ofNanos(w.get2())), w.get2()));
    }

    @Provide
    Arbitrary<Scenario> slidingLogs() {
        return windows().flatMap(w -> scenarios(SlidingWindowLog.of(w.get1(), Duration.ofNanos(w.get2())), w.get2()));
    }

    @Provide
    Arbitrary<Scenario> concurrencyLimits() {
        return windows().flatMap(w -> scenarios(ConcurrencyLimit.of(w.get1(), Duration.ofNanos(w.get2())), w.get2()));
    }

    @Provide
    Arbitrary<Scenario> anyPolicy() {
        return Arbitraries.oneOf(
                tokenBuckets(), gcras(), fixedWindows(), slidingCounters(), slidingLogs(), concurrencyLimits());
    }

    /** (limit 1..6, window 1..3000 ns). */
    private static Arbitrary<Tuple.Tuple2<Long, Long>> windows() {
        return Combinators.combine(
                        Arbitraries.longs().between(1, 6), Arbitraries.longs().between(1, 3000))
                .as(Tuple::of);
    }

    /** Histories for {@code policy}, whose natural time scale is {@code scale} ns. */
    private static Arbitrary<Scenario> scenarios(LimitPolicy policy, long scale) {
        Arbitrary<Long> advances = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0L)),
                Tuple.of(2, Arbitraries.longs().between(1, 3)),
                Tuple.of(6, Arbitraries.longs().between(0, scale)),
                Tuple.of(1, Arbitraries.longs().between(0, 4 * scale)));
        Arbitrary<Integer> releases = policy instanceof ConcurrencyLimit
                ? Arbitraries.frequencyOf(
                        Tuple.of(2, Arbitraries.just(-1)),
                        Tuple.of(1, Arbitraries.integers().between(0, 100)))
                : Arbitraries.just(-1);
        Arbitrary<Step> steps = Combinators.combine(
                        advances, Arbitraries.longs().between(1, policy.limit()), releases)
                .as(Step::new);
        return Combinators.combine(
                        Arbitraries.longs().between(0, 10_000),
                        steps.list().ofMinSize(1).ofMaxSize(40))
                .as((offset, list) -> new Scenario(policy, offset, list, false));
    }
}
