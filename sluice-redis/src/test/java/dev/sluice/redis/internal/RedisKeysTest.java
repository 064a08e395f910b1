package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The names of Redis keys: one object (limiter key or queue) per Redis key, the slot a hash tag asks for, and the
 * names that did not need to change kept.
 */
class RedisKeysTest {
    private static final List<String> KINDS = Stream.of(
                    TokenBucket.of(1, Duration.ofSeconds(1)),
                    Gcra.of(1, Duration.ofSeconds(1), 1),
                    FixedWindow.of(1, Duration.ofSeconds(1)),
                    SlidingWindowCounter.of(1, Duration.ofSeconds(1)),
                    SlidingWindowLog.of(1, Duration.ofSeconds(1)),
                    ConcurrencyLimit.of(1, Duration.ofSeconds(1)))
            .map(LimitScript::kind)
            .distinct()
            .toList();

    private static final List<String> PREFIXES = List.of("P", "P:x", "P:queue");
    private static final List<String> NAMES = List.of("x", "y", "x:y", "queue", "fixed", "x:fixed");
    private static final List<String> PIECES =
            List.of("a", ":x", "{", "}", "{a}", "%", "%7B", "?", "\uD800", "\uDC00", "fixed:");

    /** An object whose state Redis holds: a limiter key, or a queue (limiter and kind null, key its name). */
    record Owner(String prefix, String limiter, String kind, String key) {
        boolean isQueue() {
            return limiter == null;
        }

        /** Its Redis keys (a queue's base, under which the queue script adds {@code :suffix} keys). */
        List<String> keys() {
            if (isQueue()) {
                return List.of(RedisKeys.queueBase(prefix, key));
            }
            String state = RedisKeys.limiterKey(RedisKeys.limiterStart(prefix, limiter, kind), key);
            return List.of(state, RedisKeys.auxiliaryKey(state));
        }

        /** Whether {@code redisKey} (as Redis sees it: UTF-8 bytes) is, or could be, one of its keys. */
        boolean owns(String redisKey) {
            String seen = asRedisSeesIt(redisKey);
            for (String own : keys()) {
                String mine = asRedisSeesIt(own);
                if (seen.equals(mine) || (isQueue() && seen.startsWith(mine + ":"))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** {@code key} as the bytes Redis receives, one char per byte: lone surrogates are sent as {@code ?}. */
    static String asRedisSeesIt(String key) {
        return new String(key.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    @Test
    void theDefaultPrefixPlainNamesAndKeysWithoutBracesKeepTheirKeys() {
        String start = RedisKeys.limiterStart("sluice", "api", "gcra");

        assertThat(RedisKeys.limiterKey(start, "user:42")).isEqualTo("sluice:api:gcra:{user:42}");
        assertThat(RedisKeys.auxiliaryKey(RedisKeys.limiterKey(start, "a"))).isEqualTo("sluice:api:gcra:{a}:x");
        assertThat(RedisKeys.queueBase("sluice", "mail")).isEqualTo("sluice:queue:{mail}");
        assertThat(RedisKeys.queueBase("app:jobs", "mail.v2")).isEqualTo("app:jobs:queue:{mail.v2}");
        assertThat(RedisKeys.limiterStart("app:jobs", "a.b-c_d", "log")).isEqualTo("app:jobs:a.b-c_d:log:");
    }

    @Test
    void namesLoseTheirColonsAndKeysTheirBraces() {
        assertThat(RedisKeys.limiterStart("P", "a:fixed", "fixed")).isEqualTo("P:a%3Afixed:fixed:");
        String start = RedisKeys.limiterStart("P", "a", "fixed");
        assertThat(RedisKeys.limiterKey(start, "{acme}:search")).isEqualTo("P:a:fixed:{acme}~%7Bacme%7D%3Asearch");
        assertThat(RedisKeys.limiterKey(start, "{}x}")).isEqualTo("P:a:fixed:{%7B%7Dx%7D}");
        assertThat(RedisKeys.limiterKey(start, "100%")).isEqualTo("P:a:fixed:{100%25}");
        assertThat(RedisKeys.limiterKey(start, "a\uD800b\uD83D\uDE00")).isEqualTo("P:a:fixed:{a%uD800b\uD83D\uDE00}");
        assertThat(RedisKeys.limiterKey(start, "\uDC00")).isEqualTo("P:a:fixed:{%uDC00}");
    }

    @Test
    void aKeyNamingAHashTagIsInThatTagsSlotAndOtherKeysInOneSlotEach() {
        String start = RedisKeys.limiterStart("sluice", "search:v1", "log");
        for (String key : List.of("{acme}:search", "{acme}", "x{acme}", "{acme}:a:b", "{a:b{c}x", "{ü}")) {
            String state = RedisKeys.limiterKey(start, key);
            int tagSlot = SlotHash.getSlot(RedisKeys.hashTag(key));
            assertThat(SlotHash.getSlot(state))
                    .as("slot of %s (key %s)", state, key)
                    .isEqualTo(tagSlot);
            assertThat(SlotHash.getSlot(RedisKeys.auxiliaryKey(state))).isEqualTo(tagSlot);
        }
        for (String key : List.of("acme", "{}acme", "a}b{", "{", "user:42")) {
            String state = RedisKeys.limiterKey(start, key);
            assertThat(RedisKeys.hashTag(key)).as("the tag of %s", key).isNull();
            assertThat(SlotHash.getSlot(RedisKeys.auxiliaryKey(state))).isEqualTo(SlotHash.getSlot(state));
        }
        assertThat(SlotHash.getSlot(RedisKeys.queueBase("a:b", "q:1") + ":m")).isEqualTo(SlotHash.getSlot("q:1"));
    }

    @Test
    void noKindOfPolicyIsTheWordBeforeAQueuesName() {
        assertThat(KINDS).hasSize(5).doesNotContain(RedisKeys.QUEUE).allMatch(kind -> kind.matches("[a-z]+"));
    }

    @Test
    void keysOnceSharedByTwoOwnersNowBelongToOne() {
        List<Owner> owners = List.of(
                new Owner("P", "n", "log", "acme"),
                new Owner("P", "n", "log", "{acme}"),
                new Owner("P", "n", "log", "{acme}:x"),
                new Owner("P", "n", "log", "{acme}:x:x"),
                new Owner("P", "a", "fixed", "fixed:{k}"),
                new Owner("P", "a:fixed", "fixed", "{k}"),
                new Owner("P", "x:y", "fixed", "k"),
                new Owner("P:x", "y", "fixed", "k"),
                new Owner("P", "x", "fixed", "fixed:{k}"),
                new Owner("P:x", "fixed", "fixed", "{k}"),
                new Owner("P", "n", "fixed", "a\uD800"),
                new Owner("P", "n", "fixed", "a?"),
                new Owner("P", null, null, "q"),
                new Owner("P:x", null, null, "q"),
                new Owner("P", "x", "fixed", "{q}"),
                new Owner("P", "queue", "fixed", "{q}"));
        assertOneOwnerEach(owners);
    }

    /**
     * Every owner of a small world, whose keys are made of up to 3 pieces holding separators: no Redis key belongs to
     * two, nor does a limiter key lie under a queue's base.
     */
    @Test
    void noRedisKeyOfASmallWorldHasTwoOwners() {
        List<String> keys = new ArrayList<>();
        List<String> shorter = List.of("");
        for (int pieces = 1; pieces <= 3; pieces++) {
            List<String> longer = new ArrayList<>();
            for (String start : shorter) {
                PIECES.forEach(piece -> longer.add(start + piece));
            }
            keys.addAll(longer);
            shorter = longer;
        }
        Map<String, Owner> byKey = new HashMap<>();
        List<Owner> queues = new ArrayList<>();
        List<String> shared = new ArrayList<>();
        for (String prefix : PREFIXES) {
            for (String name : NAMES) {
                Owner queue = new Owner(prefix, null, null, name);
                queues.add(queue);
                byKey.put(asRedisSeesIt(queue.keys().get(0)), queue);
                for (String kind : KINDS) {
                    for (String key : keys) {
                        Owner owner = new Owner(prefix, name, kind, key);
                        for (String redisKey : owner.keys()) {
                            Owner before = byKey.put(asRedisSeesIt(redisKey), owner);
                            if (before != null && !before.equals(owner)) {
                                shared.add(redisKey + " of " + owner + " and of " + before);
                            }
                        }
                    }
                }
            }
        }
        assertThat(byKey).hasSizeGreaterThan(100_000);
        for (Owner queue : queues) {
            String under = asRedisSeesIt(queue.keys().get(0)) + ":";
            byKey.forEach((seen, owner) -> {
                if (seen.startsWith(under)) {
                    shared.add(seen + " of " + owner + " and under the base of " + queue);
                }
            });
        }
        assertThat(shared).as("keys of two owners").isEmpty();
    }

    /**
     * Any limiter key, against every other that a plain join of prefix, name, kind and key with colons confused it
     * with: those whose joined text is its own, its own with {@code :x} (its second key) added, or its own with
     * {@code ?} for lone surrogates (as UTF-8 sends them).
     */
    @Property(tries = 3000)
    void noLimiterKeySharesAKeyWithThoseAPlainJoinConfusesItWith(@ForAll("limiterKeys") Owner owner) {
        String joined = String.join(":", owner.prefix(), owner.limiter(), owner.kind(), owner.key());
        for (String text : List.of(joined, joined + ":x", asRedisSeesIt(joined))) {
            for (Owner other : splits(text)) {
                assertOneOwnerEach(List.of(owner, other));
            }
        }
    }

    @Provide
    Arbitrary<Owner> limiterKeys() {
        Arbitrary<String> prefix =
                Arbitraries.strings().withChars("P:x").ofMinLength(1).ofMaxLength(5);
        Arbitrary<String> name =
                Arbitraries.strings().withChars("x:").ofMinLength(1).ofMaxLength(4);
        Arbitrary<String> key =
                Arbitraries.of(PIECES).list().ofMinSize(1).ofMaxSize(6).map(pieces -> String.join("", pieces));
        return Combinators.combine(prefix, name, Arbitraries.of(KINDS), key).as(Owner::new);
    }

    /** Every limiter key whose prefix, name, kind and key, joined by colons, are {@code text}. */
    private static List<Owner> splits(String text) {
        List<Owner> found = new ArrayList<>();
        int end = text.contains("{") ? text.indexOf('{') : text.length();
        for (int a = text.indexOf(':'); a >= 0 && a < end; a = text.indexOf(':', a + 1)) {
            for (int b = text.indexOf(':', a + 1); b >= 0 && b < end; b = text.indexOf(':', b + 1)) {
                for (int c = text.indexOf(':', b + 1); c >= 0 && c < end; c = text.indexOf(':', c + 1)) {
                    String kind = text.substring(b + 1, c);
                    if (a > 0 && b > a + 1 && KINDS.contains(kind) && c + 1 < text.length()) {
                        found.add(
                                new Owner(text.substring(0, a), text.substring(a + 1, b), kind, text.substring(c + 1)));
                    }
                }
            }
        }
        return found;
    }

    private static void assertOneOwnerEach(List<Owner> owners) {
        List<String> shared = new ArrayList<>();
        for (Owner owner : owners) {
            for (String key : owner.keys()) {
                for (Owner other : owners) {
                    if (!other.equals(owner) && other.owns(key)) {
                        shared.add(key + " of " + owner + " and of " + other);
                    }
                }
            }
        }
        assertThat(shared).as("keys of two owners").isEmpty();
    }
}
