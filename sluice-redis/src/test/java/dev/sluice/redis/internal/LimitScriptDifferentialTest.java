package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The script against the in-memory engine, which is the specification: random sequences of requests (acquires,
 * peeks, refunds, resets and releases), on the same virtual clock, must get the same decisions to the nanosecond.
 */
@Tag("slow")
class LimitScriptDifferentialTest {
    private static final long TWO_52 = 1L << 52;
    private static final Instant[] STARTS = {
        ManualClock.DEFAULT_START, // 2026-01-01T00:00:00Z
        Instant.parse("2026-07-14T13:37:42.123456789Z"),
        Instant.EPOCH.plusNanos(1),
        Instant.parse("2099-12-31T23:59:59.999999999Z"),
    };
    /** Keeps the virtual clock where readings plus policy spans stay far below {@link SluiceClock#MAX_NANOS}. */
    private static final long LATEST = SluiceClock.MAX_NANOS - 8 * TWO_52;

    private static LimitScriptRunner runner;
    private static int runs;

    @BeforeAll
    static void connect() {
        runner = new LimitScriptRunner();
    }

    @AfterAll
    static void disconnect() {
        runner.close();
    }

    static Stream<Arguments> policies() {
        return Stream.of(
                Arguments.of(TokenBucket.perSecond(10)),
                Arguments.of(TokenBucket.of(3, Duration.ofSeconds(1))), // 333,333,334 ns a permit
                Arguments.of(TokenBucket.of(5, 3, Duration.ofSeconds(1))),
                Arguments.of(TokenBucket.of(1_000_000_000_000L, Duration.ofNanos(4_000_000_000_000_000L))),
                Arguments.of(Gcra.of(7, Duration.ofSeconds(1), 5)),
                Arguments.of(Gcra.of(1, Duration.ofNanos(TWO_52), 1)),
                Arguments.of(FixedWindow.of(5, Duration.ofSeconds(1))),
                Arguments.of(FixedWindow.of(3, Duration.ofNanos(333_333_333))),
                Arguments.of(FixedWindow.of(10, Duration.ofNanos(7))),
                Arguments.of(FixedWindow.of(1_000_000_000_000L, Duration.ofNanos(TWO_52))),
                Arguments.of(FixedWindow.of(4, Duration.ofNanos(4_000_000_000_000_007L))),
                Arguments.of(FixedWindow.of(100, Duration.ofHours(1))),
                Arguments.of(SlidingWindowCounter.of(5, Duration.ofSeconds(1))),
                Arguments.of(SlidingWindowCounter.of(7, Duration.ofNanos(777_777_777))),
                Arguments.of(SlidingWindowCounter.of(1_000_000_000_000L, Duration.ofNanos(TWO_52 / 2))),
                Arguments.of(SlidingWindowCounter.of(3, Duration.ofNanos(2_000_000_000_000_003L))),
                Arguments.of(SlidingWindowCounter.of(100, Duration.ofMinutes(1))),
                Arguments.of(SlidingWindowLog.of(5, Duration.ofSeconds(1))),
                Arguments.of(SlidingWindowLog.of(10, Duration.ofNanos(333_333_333))),
                Arguments.of(SlidingWindowLog.of(1_000_000, Duration.ofNanos(TWO_52))),
                Arguments.of(ConcurrencyLimit.of(3, Duration.ofSeconds(1))),
                Arguments.of(ConcurrencyLimit.of(5, Duration.ofNanos(777_777_777))),
                Arguments.of(ConcurrencyLimit.of(1_000_000, Duration.ofNanos(TWO_52))));
    }

    @ParameterizedTest
    @MethodSource("policies")
    void randomSequencesDecideAsTheInMemoryEngine(LimitPolicy policy) {
        long seed = 1;
        for (Instant start : STARTS) {
            for (int i = 0; i < 2; i++) {
                try (Run run = new Run(policy, start, seed++)) {
                    run.steps(300);
                }
            }
        }
    }

    static Stream<Arguments> chains() {
        TokenBucket bucket = TokenBucket.of(4, 3, Duration.ofSeconds(1));
        FixedWindow fixed = FixedWindow.of(6, Duration.ofNanos(777_777_777));
        SlidingWindowCounter counter = SlidingWindowCounter.of(5, Duration.ofSeconds(1));
        SlidingWindowLog log = SlidingWindowLog.of(4, Duration.ofNanos(700_000_001));
        ConcurrencyLimit leases = ConcurrencyLimit.of(3, Duration.ofNanos(900_000_000));
        Function<String, String> own = context -> context;
        Function<String, String> global = context -> "all";
        Function<String, String> half = context -> context.equals("a") ? "a" : "b";
        return Stream.of(
                Arguments.of(
                        "bucket per key, fixed window global",
                        List.of(link("x", bucket, own), link("y", fixed, global))),
                Arguments.of(
                        "counter, log, leases",
                        List.of(link("x", counter, own), link("y", log, own), link("z", leases, global))),
                Arguments.of("one bucket twice", List.of(link("x", bucket, own), link("x", bucket, half))),
                Arguments.of(
                        "one log twice around leases",
                        List.of(link("x", log, own), link("y", leases, global), link("x", log, half))),
                Arguments.of("one lease limit twice", List.of(link("x", leases, own), link("x", leases, half))),
                Arguments.of(
                        "fixed, counter, fixed",
                        List.of(link("x", fixed, own), link("y", counter, global), link("x", fixed, half))),
                Arguments.of(
                        "one counter twice, bucket",
                        List.of(link("x", counter, global), link("x", counter, half), link("y", bucket, own))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("chains")
    void chainsDecideAllOrNothingAsTheInMemoryChain(String name, List<Link> links) {
        for (long seed = 1; seed <= 4; seed++) {
            new ChainRun(links, seed).steps(300);
        }
    }

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of("token bucket"),
                Arguments.of("gcra"),
                Arguments.of("fixed window"),
                Arguments.of("sliding counter"),
                Arguments.of("sliding log"),
                Arguments.of("concurrency"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void policyChangesReExpressStateAsAdoptDoes(String kind) {
        Random random = new Random(kind.hashCode());
        int compared = 0;
        for (int trial = 0; trial < 120; trial++) {
            Instant start = STARTS[trial % STARTS.length];
            LimitPolicy before = randomPolicy(kind, random);
            LimitPolicy after = randomPolicy(kind, random);
            // A log's grants keep their times under a new window: under a longer one, grants that had left the
            // old window count again, in memory only while neither an acquire nor a sweep has dropped them, on
            // Redis only while the key has not expired. Neither engine is the reference there.
            while (kind.equals("sliding log") && span(after) > span(before)) {
                after = randomPolicy(kind, random);
            }
            try (Run run = new Run(before, start, random.nextLong())) {
                run.steps(random.nextInt(25));
                compared += run.changePolicy(after, 15);
            }
        }
        assertThat(compared).as("trials that went on after the change").isGreaterThan(10);
    }

    @Test
    void aBucketSlowedDownAfterABurstOwesMoreThan2To53Nanos() {
        TokenBucket fast = TokenBucket.of(1_000_000_000_000L, Duration.ofNanos(4_000_000_000_000_000L));
        TokenBucket slow = TokenBucket.of(1, 1, Duration.ofNanos(TWO_52));
        try (Run run = new Run(fast, ManualClock.DEFAULT_START, 7)) {
            run.acquire("a", fast.capacity() / 2);
            run.acquire("a", fast.capacity() / 2);
            run.advance(123_456_789);
            // the debt, about 4e15 ns × 2^52 / 4000, is capped at 2^61 - 1 ns as GcraAlgorithm.adopt caps it
            run.changePolicyOnly(slow);
            Decision capped = run.acquire("a", 1);
            assertThat(capped.retryAfterNanos()).isEqualTo(Long.MAX_VALUE / 4);
        }
        TokenBucket medium = TokenBucket.of(1_000, 1, Duration.ofNanos(1_000_000_007));
        try (Run run = new Run(fast, ManualClock.DEFAULT_START, 8)) {
            run.acquire("b", fast.capacity() - 3);
            run.advance(5_000);
            run.changePolicyOnly(medium);
            Decision owed = run.acquire("b", 1);
            assertThat(owed.retryAfterNanos()).isGreaterThan(1L << 53);
            assertThat(owed.resetAtNanos() - run.clock.nanos()).isGreaterThan(1L << 53);
        }
        TokenBucket slower = TokenBucket.of(1_000, 1, Duration.ofNanos(100_001));
        try (Run run = new Run(fast, ManualClock.DEFAULT_START, 9)) {
            run.acquire("c", fast.capacity() - 1);
            run.advance(1);
            run.changePolicyOnly(slower);
            // about 1e17 ns: past 2^53, below the cap, so exact only with the script's long multiplication
            Decision owed = run.acquire("c", 1);
            assertThat(owed.retryAfterNanos()).isBetween(1L << 53, 1L << 60);
        }
    }

    static Stream<Arguments> logs() {
        return Stream.of(
                Arguments.of(SlidingWindowLog.of(100, Duration.ofSeconds(1))),
                Arguments.of(ConcurrencyLimit.of(100, Duration.ofSeconds(1))));
    }

    @ParameterizedTest
    @MethodSource("logs")
    void longHistoriesAreScannedInOrder(LimitPolicy policy) {
        try (Run run = new Run(policy, ManualClock.DEFAULT_START, 11)) {
            for (int i = 0; i < 100; i++) {
                run.acquire("k", 1);
                run.advance(1_000_000 + i);
            }
            run.acquire("k", 1);
            run.acquire("k", 60);
            run.acquire("k", 100);
            run.advance(20_000_000);
            run.acquire("k", 97);
            run.advance(900_000_000);
            run.acquire("k", 30);
            run.acquire("k", 50);
        }
    }

    @Test
    void aChainSeesTheLeasesItsEarlierLayersTookOnTheSameKey() {
        ManualClock clock = new ManualClock(ManualClock.DEFAULT_START);
        try (Sluice memory = Sluice.inMemory(clock)) {
            ConcurrencyLimit slow = ConcurrencyLimit.of(5, Duration.ofSeconds(10));
            ConcurrencyLimit fast = ConcurrencyLimit.of(5, Duration.ofSeconds(1));
            ConcurrencyLimiter limiter = memory.concurrencyLimiter("x", slow);
            LimitChain<String> chain = memory.<String>chain()
                    .layer(limiter, "k")
                    .layer(limiter, "k")
                    .build();
            LimitScript.Layer held = runner.layer("same-leases", "k", slow, "held");
            assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
            assertThat(runner.acquire(List.of(held), 3, clock.nanos()).allowed())
                    .isTrue();
            clock.advanceNanos(1_000_000_000);
            limiter.setPolicy(fast);

            // the first layer takes 1 of the 2 free permits, expiring before the 3 held; the second is denied
            // until the first layer's lease expires
            Decision expected = chain.tryAcquire("ctx", 2);
            LimitScript.Reply reply = runner.acquire(
                    List.of(
                            runner.layer("same-leases", "k", fast, "first"),
                            runner.layer("same-leases", "k", fast, "second")),
                    2,
                    clock.nanos());

            assertThat(expected.denied()).isTrue();
            assertThat(expected.retryAfterNanos()).isEqualTo(1_000_000_000);
            assertThat(actual(ChainRun.combine(reply))).isEqualTo(expected(expected));
        }
    }

    private static LimitPolicy randomPolicy(String kind, Random random) {
        long[] limits = {1, 2, 3, 5, 10, 1_000, 1_000_000, 1_000_000_000_000L};
        long[] spans = {7, 1_000_000, 333_333_333, 1_000_000_000, 60_000_000_000L, 4_000_000_000_007L, TWO_52 / 2};
        long limit = limits[random.nextInt(limits.length)];
        long span = spans[random.nextInt(spans.length)] + (random.nextBoolean() ? 0 : random.nextInt(1000));
        return switch (kind) {
            case "token bucket", "gcra" -> {
                long interval = Math.max(1, Math.min(span, TWO_52 / limit));
                if (random.nextBoolean()) {
                    interval = 1 + random.nextLong(interval);
                }
                yield kind.equals("gcra")
                        ? Gcra.of(1, Duration.ofNanos(interval), limit)
                        : TokenBucket.of(limit, 1, Duration.ofNanos(interval));
            }
            case "fixed window" -> FixedWindow.of(limit, Duration.ofNanos(span));
            case "sliding counter" -> SlidingWindowCounter.of(limit, Duration.ofNanos(Math.min(span, TWO_52 / 2)));
            case "sliding log" ->
                SlidingWindowLog.of(Math.min(limit, SlidingWindowLog.MAX_LIMIT), Duration.ofNanos(span));
            case "concurrency" ->
                ConcurrencyLimit.of(Math.min(limit, ConcurrencyLimit.MAX_CONCURRENT), Duration.ofNanos(span));
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /** The time a policy's state takes to drain: the scale of the clock steps. */
    private static long span(LimitPolicy policy) {
        return switch (policy) {
            case TokenBucket bucket -> bucket.capacity() * bucket.nanosPerPermit();
            case Gcra gcra -> gcra.burst() * gcra.nanosPerPermit();
            case FixedWindow window -> window.window().toNanos();
            case SlidingWindowCounter window -> window.window().toNanos();
            case SlidingWindowLog log -> log.window().toNanos();
            case ConcurrencyLimit concurrency -> concurrency.leaseTimeout().toNanos();
        };
    }

    private static long window(LimitPolicy policy) {
        return switch (policy) {
            case FixedWindow window -> window.window().toNanos();
            case SlidingWindowCounter window -> window.window().toNanos();
            default -> span(policy);
        };
    }

    /** How far to move the clock: nothing, a nanosecond, a permit's time, a window, exact boundaries. */
    private static long advance(Random random, LimitPolicy policy, long now, Decision last) {
        long span = span(policy);
        long window = window(policy);
        long step = switch (random.nextInt(13)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> random.nextLong(1_000);
            case 3 -> random.nextLong(span / policy.limit() + 2);
            case 4 -> random.nextLong(span / 10 + 1);
            case 5 -> random.nextLong(span + 1);
            case 6 -> span;
            case 7 -> span + random.nextLong(span + 1);
            case 8 -> last != null && last.denied() ? last.retryAfterNanos() : 0;
            case 9 -> last != null && last.denied() ? last.retryAfterNanos() - 1 : 1;
            case 10 -> last != null ? Math.max(0, last.resetAtNanos() - now + random.nextInt(3) - 1) : 0;
            case 11 -> window - Math.floorMod(now, window) + random.nextInt(3) - 1;
            default -> random.nextLong(3 * span + 1);
        };
        step = Math.max(0, step);
        return now + step > LATEST ? random.nextLong(1_000) : step;
    }

    private static long permits(Random random, long limit) {
        long permits = switch (random.nextInt(7)) {
            case 0, 1 -> 1;
            case 2 -> 1 + random.nextLong(Math.min(limit, 5));
            case 3 -> limit;
            case 4 -> (long) Math.exp(random.nextDouble() * Math.log(limit));
            case 5 -> limit / 2;
            default -> 1 + random.nextLong(limit);
        };
        return Math.max(1, Math.min(limit, permits));
    }

    private static String decision(boolean allowed, long remaining, long retryAfter, long resetAt) {
        return (allowed ? "allowed" : "denied") + ", remaining " + remaining + ", retry after " + retryAfter
                + ", reset at " + resetAt;
    }

    private static String expected(Decision decision) {
        return decision(decision.allowed(), decision.remaining(), decision.retryAfterNanos(), decision.resetAtNanos());
    }

    private static String actual(LimitScript.Result result) {
        return decision(result.allowed(), result.remaining(), result.retryAfterNanos(), result.resetAtNanos());
    }

    /** The expiry the script sets (without its test slack), as Redis keeps it: epoch ms, alive through it. */
    private static long expiryMs(long idleAtNanos, long now) {
        return Math.floorDiv(now, 1_000_000)
                + Math.max(1, Math.ceilDiv(idleAtNanos - Math.floorDiv(now, 1_000_000) * 1_000_000, 1_000_000));
    }

    /**
     * One limiter on both engines. The Redis keys are dropped once their expiry (less the test slack) has
     * passed on the virtual clock, as Redis would drop them on a real one: a too-short expiry shows up as a
     * different decision.
     */
    static final class Run implements AutoCloseable {
        final Random random;
        final ManualClock clock;
        final Sluice memory;
        final NamedLimiter limiter;
        final String name = "run" + runs++;
        final String[] keys = {"a", "b", "c"};
        final Map<String, Long> expiries = new HashMap<>();
        final Map<String, List<Held>> held = new HashMap<>();
        final List<String> history = new ArrayList<>();
        LimitPolicy policy;
        Decision last;
        int leases;

        record Held(Decision decision, String member, long expiresAt, boolean[] released) {}

        Run(LimitPolicy policy, Instant start, long seed) {
            this.policy = policy;
            this.random = new Random(seed);
            this.clock = new ManualClock(start);
            this.memory = Sluice.inMemory(clock);
            this.limiter = ContractSupport.limiterOf(memory, "l", policy);
            history.add(policy + " from " + start + ", seed " + seed);
        }

        void steps(int count) {
            for (int step = 0; step < count; step++) {
                advance(LimitScriptDifferentialTest.advance(random, policy, clock.nanos(), last));
                String key = keys[random.nextInt(keys.length)];
                int operation = random.nextInt(16);
                boolean leases = policy instanceof ConcurrencyLimit;
                if (leases && operation < 4) {
                    release(key);
                } else if (operation == 4 || operation == 5) {
                    peek(key, permits(random, policy.limit()));
                } else if (!leases && (operation == 6 || operation == 7)) {
                    refund(key, permits(random, policy.limit()));
                } else if (operation == 8) {
                    reset(key);
                } else {
                    acquire(key, permits(random, policy.limit()));
                }
            }
        }

        /** Changes the policy on both engines (Redis learns it from the next call's arguments). */
        void changePolicyOnly(LimitPolicy next) {
            history.add("at " + clock.nanos() + ": policy " + next);
            ContractSupport.setPolicy(limiter, next);
            policy = next;
        }

        @Override
        public void close() {
            memory.close();
        }

        /** Changes the policy on both engines, then acquires every key at that instant; returns 1 if it went on. */
        int changePolicy(LimitPolicy next, int stepsAfter) {
            changePolicyOnly(next);
            boolean allAllowed = true;
            for (String key : keys) {
                allAllowed &= acquire(key, permits(random, policy.limit())).allowed();
            }
            boolean adoptIsANoOp = next instanceof SlidingWindowLog || next instanceof ConcurrencyLimit;
            // Redis re-expresses a key's state when a call first reaches it; a denial writes nothing, so a later
            // call re-expresses it again at its own time, where the in-memory engine did it once, for every key.
            if (!allAllowed && !adoptIsANoOp) {
                return 0;
            }
            steps(stepsAfter);
            return 1;
        }

        void advance(long nanos) {
            clock.advanceNanos(nanos);
            long nowMs = Math.floorDiv(clock.nanos(), 1_000_000);
            expiries.entrySet().removeIf(expiry -> {
                if (nowMs > expiry.getValue()) {
                    LimitScript.Layer layer = layer(expiry.getKey());
                    runner.redis.del(layer.stateKey(), layer.auxKey());
                    return true;
                }
                return false;
            });
        }

        LimitScript.Layer layer(String key) {
            String leaseId = policy instanceof ConcurrencyLimit ? "lease-" + leases++ : null;
            return runner.layer(name, key, policy, leaseId);
        }

        Decision acquire(String key, long permits) {
            long now = clock.nanos();
            Decision expected = limiter.tryAcquire(key, permits);
            LimitScript.Layer layer = layer(key);
            LimitScript.Reply reply = runner.acquire(List.of(layer), permits, now);
            history.add("at " + now + ": " + key + " takes " + permits + ": " + expected(expected));
            assertThat(reply.nowNanos()).isEqualTo(now);
            assertThat(actual(reply.layers()[0])).as(context()).isEqualTo(expected(expected));
            String member = reply.layers()[0].leaseMember();
            if (expected.allowed()) {
                expiries.put(key, checkExpiry(layer, now, expected.resetAtNanos()));
            }
            if (policy instanceof ConcurrencyLimit && expected.allowed()) {
                assertThat(member)
                        .as(context())
                        .startsWith(LimitScript.storedTime(expected.lease().expiresAtNanos()) + "|");
                held.computeIfAbsent(key, k -> new ArrayList<>())
                        .add(new Held(expected, member, expected.lease().expiresAtNanos(), new boolean[1]));
            } else {
                assertThat(member).as(context()).isEmpty();
            }
            last = expected;
            return expected;
        }

        void peek(String key, long permits) {
            long now = clock.nanos();
            Decision expected = limiter.peek(key, permits);
            LimitScript.Reply reply = runner.peek(layer(key), permits, now);
            history.add("at " + now + ": " + key + " peeks at " + permits + ": " + expected(expected));
            assertThat(actual(reply.layers()[0])).as(context()).isEqualTo(expected(expected));
            assertThat(reply.layers()[0].leaseMember()).as(context()).isEmpty();
        }

        /** Refunds on both engines; the decisions that follow show whether they agree. */
        void refund(String key, long permits) {
            long now = clock.nanos();
            ((RateLimiter) limiter).refund(key, permits);
            runner.refund(layer(key), permits, now);
            history.add("at " + now + ": " + key + " gets " + permits + " back");
        }

        void reset(String key) {
            long now = clock.nanos();
            limiter.reset(key);
            LimitScript.Layer layer = layer(key);
            runner.reset(layer, now);
            history.add("at " + now + ": " + key + " is reset");
            assertThat(runner.redis.exists(layer.stateKey(), layer.auxKey()))
                    .as(context())
                    .isZero();
            expiries.remove(key);
            for (Held lease : held.getOrDefault(key, List.of())) {
                assertThat(lease.decision().release())
                        .as("in memory, a lease dropped by a reset")
                        .isFalse();
                assertThat(runner.release(layer, lease.member(), now))
                        .as("a lease dropped by a reset")
                        .isFalse();
            }
            held.remove(key);
        }

        void release(String key) {
            List<Held> leases = held.getOrDefault(key, List.of());
            if (leases.isEmpty()) {
                return;
            }
            Held lease = leases.get(random.nextInt(leases.size()));
            long now = clock.nanos();
            boolean expected = lease.decision().release();
            boolean actual = runner.release(layer(key), lease.member(), now);
            history.add("at " + now + ": " + key + " releases " + lease.member() + ": " + expected);
            assertThat(actual).as(context()).isEqualTo(expected);
            if (expected) {
                lease.released()[0] = true;
                long latest = leases.stream()
                        .filter(other -> !other.released()[0])
                        .mapToLong(Held::expiresAt)
                        .max()
                        .orElse(Long.MIN_VALUE);
                if (latest <= now) {
                    assertThat(runner.redis.exists(
                                    layer(key).stateKey(), layer(key).auxKey()))
                            .as(context())
                            .isZero();
                    expiries.remove(key);
                } else {
                    expiries.put(key, checkExpiry(layer(key), now, latest));
                }
            }
            leases.removeIf(other -> other.expiresAt() <= now || other.released()[0]);
        }

        /** Checks the keys' time to live against the time the state goes idle; returns the expiry in epoch ms. */
        long checkExpiry(LimitScript.Layer layer, long now, long idleAt) {
            long expiry = expiryMs(idleAt, now);
            long ttl = expiry - Math.floorDiv(now, 1_000_000) + 3_600_000;
            boolean twoKeys = policy instanceof SlidingWindowLog || policy instanceof ConcurrencyLimit;
            List<String> keys = twoKeys ? List.of(layer.stateKey(), layer.auxKey()) : List.of(layer.stateKey());
            for (String key : keys) {
                assertThat(runner.redis.pttl(key))
                        .as(key + " pttl; " + context())
                        .isBetween(ttl - 2_000, ttl);
            }
            if (!twoKeys) {
                assertThat(runner.redis.exists(layer.auxKey())).as(context()).isZero();
            }
            return expiry;
        }

        String context() {
            return String.join("\n", history.subList(Math.max(0, history.size() - 12), history.size()));
        }
    }

    /** A layer of a test chain: a limiter's name and policy, and how the request names its key. */
    record Link(String limiter, LimitPolicy policy, Function<String, String> key) {
        @Override
        public String toString() {
            return limiter + ": " + policy;
        }
    }

    private static Link link(String limiter, LimitPolicy policy, Function<String, String> key) {
        return new Link(limiter, policy, key);
    }

    /** A chain on both engines; a denial must leave every Redis key as it was. */
    static final class ChainRun {
        final Random random;
        final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T08:00:00.000000001Z"));
        final Sluice memory = Sluice.inMemory(clock);
        final List<Link> links;
        final LimitChain<String> chain;
        final String name = "chain" + runs++;
        final List<Held> held = new ArrayList<>();
        final List<String> history = new ArrayList<>();
        final long limit;
        int leases;

        record Held(Decision decision, List<LimitScript.Layer> layers, List<String> members) {}

        ChainRun(List<Link> links, long seed) {
            this.links = links;
            this.random = new Random(seed);
            LimitChain.Builder<String> builder = memory.chain();
            Map<String, NamedLimiter> limiters = new HashMap<>();
            for (Link link : links) {
                builder.layer(
                        limiters.computeIfAbsent(
                                link.limiter(), name -> ContractSupport.limiterOf(memory, name, link.policy())),
                        link.key());
            }
            chain = builder.build();
            limit = links.stream()
                    .mapToLong(link -> link.policy().limit())
                    .min()
                    .orElseThrow();
        }

        void steps(int count) {
            Decision last = null;
            for (int step = 0; step < count; step++) {
                LimitPolicy scale = links.get(random.nextInt(links.size())).policy();
                clock.advanceNanos(LimitScriptDifferentialTest.advance(random, scale, clock.nanos(), last));
                long now = clock.nanos();
                if (!held.isEmpty() && random.nextInt(4) == 0) {
                    Held lease = held.remove(random.nextInt(held.size()));
                    boolean expected = lease.decision().release();
                    boolean actual = false;
                    for (int i = 0; i < lease.layers().size(); i++) {
                        if (!lease.members().get(i).isEmpty()) {
                            actual |= runner.release(
                                    lease.layers().get(i), lease.members().get(i), now);
                        }
                    }
                    history.add("at " + now + ": release " + lease.members() + ": " + expected);
                    assertThat(actual).as(context()).isEqualTo(expected);
                    continue;
                }
                String context = random.nextBoolean() ? "a" : random.nextBoolean() ? "b" : "c";
                long permits = permits(random, limit);
                List<LimitScript.Layer> layers = new ArrayList<>();
                for (Link link : links) {
                    String leaseId = link.policy() instanceof ConcurrencyLimit ? "lease-" + leases++ : null;
                    layers.add(runner.layer(name + link.limiter(), link.key().apply(context), link.policy(), leaseId));
                }
                List<String> before = runner.snapshot(layers);
                long[] ttlsBefore = runner.pttls(layers);
                Decision expected = chain.tryAcquire(context, permits);
                LimitScript.Reply reply = runner.acquire(layers, permits, now);
                history.add("at " + now + ": " + context + " takes " + permits + ": " + expected(expected));
                assertThat(actual(combine(reply))).as(context()).isEqualTo(expected(expected));
                List<String> members = new ArrayList<>();
                for (LimitScript.Result result : reply.layers()) {
                    members.add(result.leaseMember());
                }
                if (expected.allowed()) {
                    if (members.stream().anyMatch(member -> !member.isEmpty())) {
                        held.add(new Held(expected, layers, members));
                    }
                } else {
                    assertThat(members).as(context()).allMatch(String::isEmpty);
                    assertThat(runner.snapshot(layers))
                            .as("a denial changes nothing; " + context())
                            .isEqualTo(before);
                    long[] ttlsAfter = runner.pttls(layers);
                    for (int i = 0; i < ttlsAfter.length; i++) {
                        if (ttlsBefore[i] < 0) {
                            assertThat(ttlsAfter[i]).as(context()).isEqualTo(ttlsBefore[i]);
                        } else {
                            assertThat(ttlsAfter[i]).as(context()).isBetween(ttlsBefore[i] - 2_000, ttlsBefore[i]);
                        }
                    }
                }
                last = expected;
            }
            memory.close();
        }

        /** The chain's decision from its layers', as {@code InMemoryChain} makes it. */
        static LimitScript.Result combine(LimitScript.Reply reply) {
            LimitScript.Result[] layers = reply.layers();
            LimitScript.Result first = null;
            long retryAfter = 0;
            for (LimitScript.Result layer : layers) {
                if (!layer.allowed()) {
                    first = first == null ? layer : first;
                    retryAfter = Math.max(retryAfter, layer.retryAfterNanos());
                }
            }
            if (first != null) {
                return new LimitScript.Result(false, first.remaining(), retryAfter, first.resetAtNanos(), "");
            }
            LimitScript.Result tightest = layers[0];
            for (LimitScript.Result layer : layers) {
                if (layer.remaining() < tightest.remaining()) {
                    tightest = layer;
                }
            }
            return tightest;
        }

        String context() {
            return links + "\n" + String.join("\n", history.subList(Math.max(0, history.size() - 12), history.size()));
        }
    }
}
