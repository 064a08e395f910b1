package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Keys are independent of each other; an engine keeps one limiter per name. */
public abstract class KeysAndRegistryContract extends ContractSupport {
    private static final TokenBucket TEN_PER_SECOND = TokenBucket.of(10, 10, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected KeysAndRegistryContract() {}

    @Test
    void keysAreIndependentOfEachOther() {
        RateLimiter limiter = engine.limiter("api", TEN_PER_SECOND);
        limiter.tryAcquire("tenant-a", 10);

        assertDecision(limiter.tryAcquire("tenant-b"), allowed("api", 10, 9, T0 + 100 * MS));
        assertDecision(limiter.tryAcquire("tenant-a"), denied("api", 10, 0, 100 * MS, T0 + SECOND));
    }

    @Test
    void keysAreComparedExactly() {
        RateLimiter limiter = engine.limiter("api", FixedWindow.of(1, Duration.ofSeconds(1)));
        for (String key : new String[] {"key", "Key", "KEY", "key ", " key", "kéy", "ключ", "🔑", "key\u0000"}) {
            assertDecision(limiter.tryAcquire(key), allowed("api", 1, 0, T0 + SECOND));
        }
        assertThat(limiter.tryAcquire("key").denied()).isTrue();
    }

    @Test
    void limiterNamesAndKeysContainingSeparatorsDoNotCollide() {
        FixedWindow one = FixedWindow.of(1, Duration.ofSeconds(1));
        RateLimiter x = engine.limiter("x", one);
        RateLimiter xa = engine.limiter("x:a", one);
        RateLimiter xDotA = engine.limiter("x.a", one);

        assertDecision(x.tryAcquire("a:b"), allowed("x", 1, 0, T0 + SECOND));
        assertDecision(xa.tryAcquire("b"), allowed("x:a", 1, 0, T0 + SECOND));
        assertDecision(xa.tryAcquire(":b"), allowed("x:a", 1, 0, T0 + SECOND));
        assertDecision(x.tryAcquire("a::b"), allowed("x", 1, 0, T0 + SECOND));
        assertDecision(xDotA.tryAcquire("b"), allowed("x.a", 1, 0, T0 + SECOND));
        assertDecision(x.tryAcquire("{a}:b"), allowed("x", 1, 0, T0 + SECOND));
        assertDecision(x.tryAcquire("*"), allowed("x", 1, 0, T0 + SECOND));
    }

    static Stream<LimitPolicy> policiesOfOne() {
        return everyPolicy(1, Duration.ofHours(1));
    }

    /** Pins a Redis engine bug: a key in braces, {@code "{acme}"}, shared the state of {@code "acme"}. */
    @ParameterizedTest
    @MethodSource("policiesOfOne")
    void aKeyInBracesIsNotTheKeyWithoutThem(LimitPolicy policy) {
        NamedLimiter limiter = limiterOf(engine, "api", policy);

        assertThat(limiter.tryAcquire("acme").allowed()).as("acme").isTrue();
        assertThat(limiter.tryAcquire("{acme}").allowed())
                .as("{acme}, after acme")
                .isTrue();
        assertThat(limiter.tryAcquire("acme").denied()).as("acme again").isTrue();
        assertThat(limiter.tryAcquire("{acme}").denied()).as("{acme} again").isTrue();
    }

    /**
     * Pins a Redis engine bug: {@code "{acme}:x"} landed on the second Redis key of {@code "acme"}, after which every
     * call for {@code "acme"} of a sliding log or concurrency limiter failed (WRONGTYPE) until the keys expired.
     * Both orders: a key used first must not break the other.
     */
    @ParameterizedTest
    @MethodSource("policiesOfOne")
    void keysThatExtendAnotherKeysHashTagLeaveThatKeyAlone(LimitPolicy policy) {
        List<String> keys = List.of(
                "{acme}:x", "acme", "{acme}", "{acme}:x:x", "{acme}:x:whatever", "{acme}:xx", "{acme}x", "x{acme}:x");
        for (List<String> order : List.of(keys, keys.reversed())) {
            NamedLimiter limiter = limiterOf(engine, order == keys ? "forward" : "backward", policy);
            for (String key : order) {
                assertThat(limiter.tryAcquire(key).allowed())
                        .as("the first call for %s of %s", key, limiter.name())
                        .isTrue();
            }
            for (String key : order) {
                assertThat(limiter.tryAcquire(key).denied())
                        .as("the second call for %s of %s", key, limiter.name())
                        .isTrue();
            }
        }
    }

    /**
     * Pins a Redis engine bug: limiter {@code a} with key {@code "fixed:{k}"} and limiter {@code a:fixed} with key
     * {@code "{k}"} shared one Redis key. The words are those an engine might put between a name and a key.
     */
    @ParameterizedTest
    @MethodSource("policiesOfOne")
    void aNameAndKeyThatJoinIntoAnotherNameAndKeyAreDistinct(LimitPolicy policy) {
        NamedLimiter a = limiterOf(engine, "a", policy);
        for (String word : List.of("gcra", "fixed", "counter", "log", "leases", "x", "queue")) {
            NamedLimiter longer = limiterOf(engine, "a:" + word, policy);
            assertThat(a.tryAcquire(word + ":{k}").allowed())
                    .as("key %s of a", word + ":{k}")
                    .isTrue();
            assertThat(longer.tryAcquire("{k}").allowed())
                    .as("key {k} of a:%s", word)
                    .isTrue();
            assertThat(longer.tryAcquire(word + ":{k}").allowed())
                    .as("key %s of a:%s", word + ":{k}", word)
                    .isTrue();
        }
    }

    /**
     * Pins a Redis engine bug: a key holding a lone UTF-16 surrogate reached Redis with {@code ?} in its place,
     * sharing the state of the key spelled with {@code ?}.
     */
    @Test
    void keysWithALoneSurrogateAreNotKeysWithAQuestionMark() {
        RateLimiter limiter = engine.limiter("api", FixedWindow.of(1, Duration.ofSeconds(1)));
        for (String key : List.of("a?", "a\uD800", "a\uDC00", "\uDBFFb", "?b", "{\uD800}:x", "{?}:x")) {
            assertThat(limiter.tryAcquire(key).allowed()).as("key %s", key).isTrue();
        }
    }

    @Test
    void theLongestKeyIsAcceptedAndKeptApartFromItsPrefix() {
        RateLimiter limiter = engine.limiter("api", FixedWindow.of(1, Duration.ofSeconds(1)));
        String longest = "k".repeat(RateLimiter.MAX_KEY_LENGTH);

        assertDecision(limiter.tryAcquire(longest), allowed("api", 1, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire(longest.substring(1)), allowed("api", 1, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire(longest), denied("api", 1, 0, SECOND, T0 + SECOND));
    }

    @Test
    void thousandsOfKeysEachGetTheirOwnLimit() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(3, Duration.ofSeconds(1)));
        for (int i = 0; i < 2000; i++) {
            assertDecision(limiter.tryAcquire("key-" + i, 3), allowed("api", 3, 0, T0 + 1_000_000_002L));
        }
        for (int i = 0; i < 2000; i++) {
            assertDecision(limiter.tryAcquire("key-" + i), denied("api", 3, 0, 333_333_334L, T0 + 1_000_000_002L));
        }
    }

    @Test
    void theSameNameAndPolicyReturnTheSameLimiterWithItsState() {
        RateLimiter first = engine.limiter("api", TEN_PER_SECOND);
        first.tryAcquire("k", 3);

        RateLimiter again = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));

        assertThat(again).isSameAs(first);
        assertDecision(again.tryAcquire("k"), allowed("api", 10, 6, T0 + 400 * MS));
    }

    @Test
    void theSameNameWithAnotherPolicyIsRefusedNamingTheLimiterBothPoliciesAndSetPolicy() {
        RateLimiter first = engine.limiter("api", TEN_PER_SECOND);
        first.tryAcquire("k", 3);
        TokenBucket faster = TokenBucket.perSecond(100);
        FixedWindow otherKind = FixedWindow.of(1, Duration.ofSeconds(1));

        assertRejected(
                () -> engine.limiter("api", faster),
                "'api'",
                TEN_PER_SECOND.toString(),
                faster.toString(),
                "setPolicy");
        assertRejected(
                () -> engine.limiter("api", otherKind, LimiterOptions.defaults()),
                "'api'",
                TEN_PER_SECOND.toString(),
                otherKind.toString());

        assertThat(first.policy()).isEqualTo(TEN_PER_SECOND);
        assertDecision(first.tryAcquire("k"), allowed("api", 10, 6, T0 + 400 * MS));
    }

    @Test
    void aNameIsOneLimiterOfOneKindAndTheOtherKindIsRefusedNamingTheFactory() {
        RateLimiter api = engine.limiter("api", TEN_PER_SECOND);
        ConcurrencyLimit pool = ConcurrencyLimit.of(2, Duration.ofSeconds(10));
        ConcurrencyLimiter workers = engine.concurrencyLimiter("workers", pool);

        assertRejected(
                () -> engine.concurrencyLimiter("api", pool),
                "'api'",
                "exists as a RateLimiter",
                TEN_PER_SECOND.toString(),
                "Sluice.limiter");
        assertRejected(
                () -> engine.limiter("workers", TEN_PER_SECOND),
                "'workers'",
                "exists as a ConcurrencyLimiter",
                pool.toString(),
                "Sluice.concurrencyLimiter");

        assertThat(engine.limiter("api", TEN_PER_SECOND)).isSameAs(api);
        assertThat(engine.concurrencyLimiter("workers", pool)).isSameAs(workers);
        assertThat(workers.policy()).isEqualTo(pool);
        assertDecision(workers.tryAcquire("k"), allowed("workers", 2, 1, T0 + 10 * SECOND));
    }

    @Test
    void differentNamesAreSeparateLimiters() {
        RateLimiter api = engine.limiter("api", TEN_PER_SECOND);
        RateLimiter api2 = engine.limiter("api2", TEN_PER_SECOND);
        api.tryAcquire("k", 10);

        assertThat(api2).isNotSameAs(api);
        assertDecision(api2.tryAcquire("k"), allowed("api2", 10, 9, T0 + 100 * MS));
    }

    @Test
    void limiterReportsItsNamePolicyAndOptions() {
        LimiterOptions options = LimiterOptions.builder().maxKeys(7).build();
        RateLimiter limiter = engine.limiter("Api.v1_x-y:z", TEN_PER_SECOND, options);

        assertThat(limiter.name()).isEqualTo("Api.v1_x-y:z");
        assertThat(limiter.policy()).isEqualTo(TEN_PER_SECOND);
        assertThat(limiter.options()).isEqualTo(options);
        assertThat(engine.limiter("plain", TEN_PER_SECOND).options()).isEqualTo(LimiterOptions.defaults());
        assertThat(LimiterOptions.defaults().maxKeys()).isEqualTo(100_000);
    }

    @Test
    void theLongestNameIsAccepted() {
        String longest = "n".repeat(128);
        RateLimiter limiter = engine.limiter(longest, TEN_PER_SECOND);
        assertThat(limiter.name()).isEqualTo(longest);
        assertDecision(limiter.tryAcquire("k"), allowed(longest, 10, 9, T0 + 100 * MS));
    }

    static Stream<LimitPolicy> policiesOfThree() {
        return everyPolicy(3, Duration.ofSeconds(10));
    }

    /** SluiceClock readings are nanoseconds since the epoch and may be negative: a fresh key is still full. */
    @ParameterizedTest
    @MethodSource("policiesOfThree")
    void freshKeyHasItsFullLimitOnAClockSetBeforeTheEpoch(LimitPolicy policy) {
        ManualClock early = clockAt("1969-12-31T23:59:59Z");
        NamedLimiter limiter = limiterOf(engineOn(early), "early", policy);

        Decision decision = limiter.tryAcquire("k", 3);

        assertThat(decision.allowed()).as("3 permits of a fresh key").isTrue();
        assertThat(decision.remaining()).isZero();
        assertThat(limiter.tryAcquire("k").denied()).isTrue();
        assertThat(limiter.tryAcquire("other", 3).allowed()).isTrue();
    }

    @Test
    void engineDecidesOnTheClockItWasGiven() {
        assertThat(engine.clock()).isSameAs(clock);
    }

    @Test
    void enginesDoNotShareLimiters() {
        RateLimiter mine = engine.limiter("api", TEN_PER_SECOND);
        mine.tryAcquire("k", 10);
        RateLimiter other = engineOn(new ManualClock()).limiter("api", TEN_PER_SECOND);

        assertThat(other).isNotSameAs(mine);
        assertDecision(other.tryAcquire("k"), allowed("api", 10, 9, T0 + 100 * MS));
    }
}
