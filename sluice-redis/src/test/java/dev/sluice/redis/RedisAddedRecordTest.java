package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Schedule;
import dev.sluice.time.ManualClock;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An add joins each new job's record from what Java packed (AddFields) and what the script decides: every record it
 * writes is the one the script's {@code cmsgpack} would pack from the same values, byte for byte, whatever the
 * job's options, name and group, and whoever reads it within the add's own call (a duplicate, a listener, a run of
 * a repeatable job) reads it whole.
 */
class RedisAddedRecordTest {
    /** The records of B:j (attempts left out) whose bytes differ from cmsgpack's packing of what they decode to. */
    private static final String NOT_AS_LUA_PACKS = """
            local all, odd = redis.call('HGETALL', KEYS[1]), {}
            for i = 1, #all, 2 do
              if all[i]:byte(1) ~= 255 and cmsgpack.pack(cmsgpack.unpack(all[i + 1])) ~= all[i + 1] then
                odd[#odd + 1] = all[i]
              end
            end
            odd[#odd + 1] = tostring(#all / 2)
            return odd
            """;

    private final String prefix = TestEngines.newPrefix();
    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));

    @Test
    void everyRecordAnAddWritesIsAsTheScriptWouldPackIt() {
        try (Sluice sluice = TestEngines.on(clock, prefix)) {
            JobQueue<String> queue = sluice.queue("records", Codec.utf8());

            addAssorted(queue, "twice", "once");

            assertThat(queue.job("everything")).hasValueSatisfying(job -> {
                assertThat(job.state()).isEqualTo(JobState.DELAYED);
                assertThat(job.name()).isEqualTo(LONG_NAME);
                assertThat(job.group()).isEqualTo("g".repeat(40));
                assertThat(job.options().priority()).isEqualTo(-3);
                assertThat(job.options().deduplicateFor()).isEqualTo(Duration.ofHours(2));
            });
            assertThat(notAsLuaPacks())
                    .as("records that cmsgpack packs otherwise")
                    .isEmpty();
        }
    }

    @Test
    void whoReadsANewRecordInItsAddsOwnCallReadsItWhole() {
        try (Sluice sluice = TestEngines.on(clock, prefix)) {
            JobQueue<String> queue = sluice.queue("records", Codec.utf8());
            List<Job<String>> heard = new CopyOnWriteArrayList<>();
            queue.addListener(new QueueListener<>() {
                @Override
                public void onAdded(Job<String> job) {
                    heard.add(job);
                }
            });

            List<Added<String>> added = addAssorted(queue, "twice", "twice");

            assertThat(added).extracting(Added::duplicate).containsExactly(false, true, false);
            assertThat(added.get(1).job().payload())
                    .as("the job the call added first")
                    .isEqualTo("1");
            assertThat(added.get(1).job().id()).isEqualTo("twice");
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(heard).extracting(Job::name).contains("plain", LONG_NAME, "r"));
            assertThat(heard).filteredOn(job -> job.name().equals("bulk")).hasSize(2);
            assertThat(heard)
                    .filteredOn(job -> job.name().equals(LONG_NAME))
                    .singleElement()
                    .satisfies(job -> assertThat(job.options().maxRateLimits()).isEqualTo(200));
            assertThat(notAsLuaPacks()).isEmpty();
        }
    }

    /**
     * The queue numbers ids without looking them up only while its meta hash knows that no id it would number is
     * taken (field 'hi', see givenHigh in queue-add.lua): once Redis lost that hash, it looks again and numbers past
     * the jobs it still holds.
     */
    @Test
    void aQueueWhoseMetaHashRedisLostNumbersPastTheJobsItHolds() {
        try (Sluice sluice = TestEngines.on(clock, prefix)) {
            JobQueue<String> queue = sluice.queue("records", Codec.utf8());
            List<String> before = List.of(
                    queue.add("n", "p").job().id(),
                    queue.add("n", "p").job().id(),
                    queue.add("n", "p").job().id());
            assertThat(before).containsExactly("1", "2", "3");

            TestEngines.commands().del(prefix + ":queue:{records}:m");
            String after = queue.add("n", "p").job().id();

            assertThat(after).isEqualTo("4");
            assertThat(queue.job("1"))
                    .hasValueSatisfying(job -> assertThat(job.payload()).isEqualTo("p"));
        }
    }

    private static final String LONG_NAME = "a name longer than thirty-one bytes, in UTF-8: éèê";

    /** Adds jobs of every kind of option, a bulk of three whose first two have ids first and second. */
    private static List<Added<String>> addAssorted(JobQueue<String> queue, String first, String second) {
        queue.add("plain", "p", JobOptions.empty());
        queue.add(
                LONG_NAME,
                "p".repeat(300),
                JobOptions.builder()
                        .jobId("everything")
                        .group("g".repeat(40))
                        .delay(Duration.ofDays(400))
                        .priority(-3)
                        .attempts(1_000)
                        .keepCompleted(Retention.keepFor(Duration.ofDays(3000)))
                        .keepFailed(Retention.keepLast(70_000))
                        .maxRateLimits(200)
                        .deduplicateFor(Duration.ofHours(2))
                        .build());
        List<Added<String>> added = queue.addBulk(List.of(
                new NewJob<>("bulk", "1", JobOptions.builder().jobId(first).build()),
                new NewJob<>("bulk", "2", JobOptions.builder().jobId(second).build()),
                new NewJob<>("bulk", "3", JobOptions.builder().priority(5).build())));
        queue.repeat(
                "every-minute", Schedule.fixedRate(Duration.ofMinutes(1)), new NewJob<>("r", "p", JobOptions.empty()));
        return added;
    }

    /** The ids of B:j's records (attempts left out) whose bytes differ from cmsgpack's packing of their values. */
    private List<String> notAsLuaPacks() {
        List<String> odd =
                TestEngines.commands().eval(NOT_AS_LUA_PACKS, ScriptOutputType.MULTI, prefix + ":queue:{records}:j");
        assertThat(Integer.parseInt(odd.get(odd.size() - 1))).as("records read").isGreaterThanOrEqualTo(5);
        return odd.subList(0, odd.size() - 1);
    }
}
