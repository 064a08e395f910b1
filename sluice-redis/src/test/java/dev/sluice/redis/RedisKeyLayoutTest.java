package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.time.ManualClock;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the Redis engine's keys are, and whose they are: engines whose prefixes extend one another share nothing,
 * the keys of a limiter key that names a hash tag are in that tag's slot, and names that need no escaping keep the
 * keys they always had. docs/redis-keys.md has the layout.
 */
class RedisKeyLayoutTest {
    private static final FixedWindow ONE_AN_HOUR = FixedWindow.of(1, Duration.ofHours(1));

    private final ManualClock clock = new ManualClock();
    private final RedisCommands<String, String> redis = TestEngines.commands();

    /**
     * Pins a bug: prefix {@code P} with limiter {@code x:y} and prefix {@code P:x} with limiter {@code y} both wrote
     * {@code P:x:y:fixed:{k}}, though engines with different prefixes are documented to share nothing.
     */
    @Test
    void enginesWhosePrefixesExtendOneAnotherShareNoLimit() {
        String prefix = TestEngines.newPrefix();
        try (Sluice outer = TestEngines.on(clock, prefix);
                Sluice inner = TestEngines.on(clock, prefix + ":x")) {
            List<RateLimiter> limiters = List.of(
                    outer.limiter("x:y", ONE_AN_HOUR),
                    inner.limiter("y", ONE_AN_HOUR),
                    outer.limiter("x", ONE_AN_HOUR),
                    inner.limiter("fixed", ONE_AN_HOUR));
            List<String> keys = List.of("k", "k", "fixed:{k}", "{k}");

            for (int i = 0; i < limiters.size(); i++) {
                assertThat(limiters.get(i).tryAcquire(keys.get(i)).allowed())
                        .as("the first call of %s for %s", limiters.get(i), keys.get(i))
                        .isTrue();
            }
            for (int i = 0; i < limiters.size(); i++) {
                assertThat(limiters.get(i).tryAcquire(keys.get(i)).denied())
                        .as("the second call of %s for %s", limiters.get(i), keys.get(i))
                        .isTrue();
            }
        }
    }

    /**
     * A guard, not a regression test (queue keys were apart before too, by the word {@code queue} where a limiter's
     * kind goes): limiters whose names spell the inner engine's queue keys leave its queue alone.
     */
    @Test
    void enginesWhosePrefixesExtendOneAnotherShareNoQueue() {
        String prefix = TestEngines.newPrefix();
        try (Sluice outer = TestEngines.on(clock, prefix);
                Sluice inner = TestEngines.on(clock, prefix + ":x")) {
            JobQueue<String> outerQueue = outer.queue("q", Codec.utf8());
            JobQueue<String> innerQueue = inner.queue("q", Codec.utf8());
            JobQueue<String> outerX = outer.queue("x", Codec.utf8());
            outerQueue.add("job", "a");
            outerQueue.add("job", "b");
            innerQueue.add("job", "c");
            // limiters whose names, joined to the outer prefix, spell the inner engine's queue keys
            outer.limiter("x:queue", ONE_AN_HOUR).tryAcquire("{q}");
            outer.limiter("x", ONE_AN_HOUR).tryAcquire("queue:{q}");

            assertThat(outerQueue.counts().waiting()).isEqualTo(2);
            assertThat(innerQueue.counts().waiting()).isEqualTo(1);
            assertThat(outerX.counts().waiting()).isZero();
            assertThat(innerQueue.add("job", "d"))
                    .as("the inner queue, after the outer limiters wrote")
                    .isNotNull();
            assertThat(innerQueue.counts().waiting()).isEqualTo(2);
        }
    }

    /** What escaping a key must keep: the slot its hash tag names, for a chain's layers and the caller's own keys. */
    @Test
    void everyKeyOfALimiterKeyNamingAHashTagIsInThatTagsSlot() {
        String prefix = TestEngines.newPrefix();
        try (Sluice sluice = TestEngines.on(clock, prefix)) {
            sluice.limiter("search:v1", SlidingWindowLog.of(2, Duration.ofHours(1)))
                    .tryAcquire("{acme}:search");
            ConcurrencyLimiter leases = sluice.concurrencyLimiter("calls", ConcurrencyLimit.of(2, Duration.ofHours(1)));
            assertThat(leases.tryAcquire("x{acme}:calls").allowed()).isTrue();

            List<String> written = redis.keys(prefix + ":*");
            assertThat(written).as("the limiters' keys").hasSizeGreaterThanOrEqualTo(2);
            assertThat(written)
                    .allSatisfy(key -> assertThat(SlotHash.getSlot(key))
                            .as("the slot of %s", key)
                            .isEqualTo(SlotHash.getSlot("acme")));
        }
    }

    /** Upgrading does not lose the state of limiter keys and queues whose names needed no escaping. */
    @Test
    void namesAndKeysWithoutBracesOrPercentSignsKeepTheirKeys() {
        String prefix = TestEngines.newPrefix() + ":app";
        try (Sluice sluice = TestEngines.on(clock, prefix)) {
            sluice.limiter("api", TokenBucket.of(5, Duration.ofHours(1))).tryAcquire("user:42");
            sluice.queue("mail", Codec.utf8()).add("job", "p");

            assertThat(redis.keys(prefix + ":api:*")).containsExactly(prefix + ":api:gcra:{user:42}");
            assertThat(redis.keys(prefix + ":queue:*"))
                    .isNotEmpty()
                    .allMatch(key -> key.startsWith(prefix + ":queue:{mail}:"));
        }
    }
}
