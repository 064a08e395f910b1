package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.WorkerOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Bad input: an {@link IllegalArgumentException} (or the exception the Javadoc names) whose message says
 * what was wrong, and a rejected call changes nothing.
 */
public abstract class QueueBadInputContract extends QueueContractSupport {
    private static final Duration SECOND_DURATION = Duration.ofSeconds(1);

    /** Strings, refusing "bad" with an exception of its own. */
    private static final Codec<String> PICKY = new Codec<>() {
        @Override
        public byte[] encode(String payload) {
            if ("bad".equals(payload)) {
                throw new IllegalStateException("picky codec refuses 'bad'");
            }
            return payload.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    /** For subclasses, one per engine. */
    protected QueueBadInputContract() {}

    private void assertNothingAdded(JobQueue<?> queue, Events events) {
        assertThat(queue.counts().total()).isZero();
        told(queue);
        assertThat(events.log).isEmpty();
    }

    @Test
    void jobOptionsRejectOutOfRangeValuesNamingValueAndRange() {
        assertRejected(() -> JobOptions.builder().delay(Duration.ofSeconds(-1)), "delay", "between 0 and", "-1 s");
        assertRejected(() -> JobOptions.builder().delay(null), "delay", "null");
        assertRejected(() -> JobOptions.builder().attempts(0), "attempts", "between 1 and 1000000", "was 0");
        assertRejected(() -> JobOptions.builder().attempts(1_000_001), "attempts", "1000001");
        assertRejected(() -> JobOptions.builder().timeout(Duration.ZERO), "timeout", "positive", "was 0 ns");
        assertRejected(() -> JobOptions.builder().deduplicateFor(Duration.ofMillis(-5)), "deduplicateFor", "positive");
        assertRejected(() -> JobOptions.builder().maxRateLimits(-1), "maxRateLimits", "between 0 and", "-1");
        assertRejected(() -> JobOptions.builder().jobId(""), "job id", "1 to 512", "empty");
        assertRejected(() -> JobOptions.builder().group("g".repeat(513)), "group", "1 to 512", "513");
        assertRejected(() -> JobOptions.builder().backoff(null), "backoff", "null");
        assertRejected(() -> JobOptions.builder().keepCompleted(null), "keepCompleted", "null");
        assertRejected(() -> Retention.keepLast(-1), "retention maxCount", "-1");
        assertRejected(() -> Backoff.fixed(Duration.ofSeconds(-1)), "fixed backoff", "was -1 s");
        assertRejected(
                () -> Backoff.exponential(Duration.ofSeconds(2), SECOND_DURATION),
                "cap",
                "at least its base 2 s, was 1 s");
        assertRejected(() -> Backoff.custom(null), "custom backoff", "null");
    }

    @Test
    void jobNamesAreCheckedWhenAdded() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        assertRejected(() -> queue.add(null, "p"), "job name", "null");
        assertRejected(() -> queue.add("", "p"), "job name", "empty");
        assertRejected(() -> queue.add("n".repeat(513), "p"), "job name", "513");
        assertRejected(() -> queue.add("n", "p", null), "options");
        assertNothingAdded(queue, events);
    }

    @Test
    void payloadTheCodecCannotEncodeIsRefusedAndNothingIsAdded() {
        JobQueue<String> queue = engine.queue("picky", PICKY);
        Events events = new Events();
        queue.addListener(events);

        assertThatThrownBy(() -> queue.add("email", "bad", withId("j1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("email")
                .hasRootCauseMessage("picky codec refuses 'bad'")
                .satisfies(e -> assertThat(e.getCause()).isInstanceOf(IllegalStateException.class));

        assertThat(queue.job("j1")).isEmpty();
        assertNothingAdded(queue, events);
        assertThat(queue.add("email", "good", withId("j1")).duplicate())
                .as("the refused id was not kept")
                .isFalse();
    }

    @Test
    void utf8CodecRefusesAnUnpairedSurrogateAndNull() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);

        assertThatThrownBy(() -> queue.add("text", "ok \uD800 broken", withId("s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("text")
                .satisfies(e -> assertThat(describe(e)).contains("unpaired surrogate"));
        assertThatThrownBy(() -> queue.add("text", "\uDC00", withId("s"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> queue.add("text", null, withId("s")))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(describe(e)).contains("null"));

        assertNothingAdded(queue, events);
    }

    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t.getMessage()).append(" / ");
        }
        return text.toString();
    }

    @Test
    void bulkWithOneBadJobAddsNoneAndNamesItsIndex() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);

        assertThatThrownBy(() -> queue.addBulk(List.of(
                        new NewJob<>("first", "ok", withId("b0")),
                        new NewJob<>("second", "ok", withId("b1")),
                        new NewJob<>("broken", "x\uD800", withId("b2")),
                        new NewJob<>("fourth", "ok", withId("b3")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2")
                .hasMessageContaining("broken");

        assertNothingAdded(queue, events);
        for (String id : List.of("b0", "b1", "b2", "b3")) {
            assertThat(queue.job(id)).isEmpty();
        }
    }

    @Test
    void bulkRefusesNullJobsAndAList() {
        JobQueue<String> queue = newQueue();
        List<NewJob<String>> withNull = new ArrayList<>();
        withNull.add(new NewJob<>("n", "p", withId("a")));
        withNull.add(null);
        assertRejected(() -> queue.addBulk(withNull), "1");
        assertRejected(() -> queue.addBulk(null), "null");
        assertThat(queue.counts().total()).isZero();
    }

    @Test
    void deduplicateForNeedsAJobId() {
        JobQueue<String> queue = newQueue();
        JobOptions withoutId =
                JobOptions.builder().deduplicateFor(Duration.ofMinutes(1)).build();
        assertRejected(() -> queue.add("dedup-job", "p", withoutId), "deduplicateFor", "dedup-job");
        assertThat(queue.counts().total()).isZero();
    }

    @Test
    void queueDefaultsMustNotSetAJobId() {
        assertRejected(() -> QueueOptions.builder().jobDefaults(withId("x")).build(), "jobDefaults", "job id");
    }

    @Test
    void unknownJobIdsAreReportedPerOperation() {
        JobQueue<String> queue = newQueue();
        assertThat(queue.job("ghost")).isEmpty();
        assertThat(queue.remove("ghost")).isFalse();
        assertThatThrownBy(() -> queue.retry("ghost"))
                .isInstanceOf(JobNotFoundException.class)
                .hasMessageContaining("ghost");
        assertThat(queue.removeRepeatable("ghost")).isFalse();
    }

    @Test
    void invalidCronIsRefusedWithTheReason() {
        assertRejected(() -> Schedule.cron("61 * * * *"), "cron expression", "61 * * * *");
        assertRejected(() -> Schedule.cron("* * *"), "5 fields", "3 fields");
        assertRejected(() -> Schedule.cron("not a cron at all"), "cron expression");
        assertRejected(() -> Schedule.cron(null), "cron expression", "null");
        assertRejected(() -> Schedule.cron("0 9 * * *", null), "time zone", "null");
        assertRejected(() -> Schedule.fixedRate(Duration.ofNanos(500)), "fixed rate period", "at least 1 ms");
        assertRejected(() -> Schedule.fixedDelay(Duration.ZERO), "fixed delay", "positive");
        assertRejected(() -> Schedule.fixedRate(SECOND_DURATION).maxRuns(0), "schedule maxRuns", "was 0");
    }

    @Test
    void repeatWithAPayloadTheCodecCannotEncodeRegistersNothing() {
        JobQueue<String> queue = newQueue();
        assertRejected(
                () -> queue.repeat("r", Schedule.fixedRate(SECOND_DURATION), new NewJob<>("nightly", "\uD800")),
                "nightly");
        assertThat(queue.repeatables()).isEmpty();
        assertThat(queue.counts().total()).isZero();
    }

    @Test
    void queueLimitsOutOfRangeAreRefused() {
        assertRejected(() -> QueueOptions.builder().maxQueued(0).build(), "maxQueued", "between 1 and", "was 0");
        assertRejected(() -> QueueOptions.builder().concurrency(0).build(), "queue concurrency", "was 0");
        assertRejected(() -> QueueOptions.builder().whenFull(null).build(), "whenFull", "null");
        assertRejected(() -> QueueOptions.WhenFull.block(Duration.ofSeconds(-1)), "whenFull blockFor", "was -1 s");
        assertRejected(() -> GroupLimits.builder().concurrency(0).build(), "group concurrency", "was 0");
        assertRejected(() -> WorkerOptions.concurrency(0), "worker concurrency", "between 1 and 100000", "was 0");

        JobQueue<String> queue = newQueue();
        assertRejected(() -> queue.setConcurrency(0), "concurrency", "0");
        assertRejected(() -> queue.setGroupDefaults(null), "null");
        assertRejected(() -> queue.setGroupLimits("g", null), "null");
        assertRejected(() -> queue.setGroupLimits(null, GroupLimits.none()), "group");
    }

    @Test
    void aGroupNameThatNoJobCouldCarryIsRejectedByLookupsAsBySetters() {
        JobQueue<String> queue = newQueue();
        String tooLong = "g".repeat(513);
        assertRejected(() -> queue.setGroupLimits("", GroupLimits.none()), "group");
        assertRejected(() -> queue.groupLimits(""), "group");
        assertRejected(() -> queue.stats(""), "group");
        assertRejected(() -> queue.groupLimits(tooLong), "group", "1 to 512");
        assertRejected(() -> queue.stats(tooLong), "group", "1 to 512");
        assertThat(queue.stats(null).counts().waiting()).isZero();
        assertThat(queue.groupLimits(null)).isEqualTo(GroupLimits.none());
    }

    @Test
    void queueNamesAndCodecsAreChecked() {
        assertRejected(() -> engine.queue("has space", Codec.utf8()), "queue", "has space");
        assertRejected(() -> engine.queue("", Codec.utf8()), "queue");
        assertRejected(() -> engine.queue("q", null), "codec", "null");
        assertRejected(() -> engine.queue("q", Codec.utf8(), null), "options", "null");
        engine.queue("q", Codec.utf8());
        assertRejected(() -> engine.queue("q", Codec.bytes()), "q", "codec named 'utf8'", "codec named 'bytes'");
    }

    @Test
    void aCodecWhoseNameIsMissingOrBlankIsRefusedAndOpensNothing() {
        assertRejected(() -> engine.queue("q", named(null)), "q", "name", "null");
        assertRejected(() -> engine.queue("q", named(" ")), "q", "name", "blank");
        assertRejected(() -> engine.queue("q", named("x".repeat(201))), "q", "name", "1 to 200", "201");
        assertRejected(() -> Codec.of("", String::getBytes, String::new), "Codec.of", "name", "1 to 200");
        assertRejected(() -> Codec.<String>of("c", null, String::new), "'c'", "encode", "null");

        assertThat(engine.queue("q", named("x".repeat(200))).counts().total()).isZero();
    }

    private static Codec<String> named(String name) {
        return new Codec<>() {
            @Override
            public byte[] encode(String payload) {
                return Codec.utf8().encode(payload);
            }

            @Override
            public String decode(byte[] bytes) {
                return Codec.utf8().decode(bytes);
            }

            @Override
            public String name() {
                return name;
            }
        };
    }

    @Test
    void listingAndCleaningRejectBadArguments() {
        JobQueue<String> queue = newQueue();
        assertRejected(() -> queue.jobs(JobState.WAITING, -1, 10), "offset", "-1");
        assertRejected(() -> queue.jobs(JobState.WAITING, 0, 0), "limit");
        assertRejected(() -> queue.jobs(JobState.WAITING, 0, 10_001), "limit", "10001");
        assertRejected(() -> queue.clean(JobState.WAITING, SECOND_DURATION), "COMPLETED", "FAILED", "WAITING");
        assertRejected(() -> queue.clean(JobState.ACTIVE, SECOND_DURATION), "ACTIVE");
        assertRejected(() -> queue.clean(JobState.COMPLETED, Duration.ofSeconds(-1)), "age");
    }

    @Test
    void progressOutsideZeroToHundredIsRefused() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        AtomicReference<Throwable> tooHigh = new AtomicReference<>();
        AtomicReference<Throwable> negative = new AtomicReference<>();
        manualWorker(queue, ctx -> {
                    try {
                        ctx.progress(101);
                    } catch (Throwable t) {
                        tooHigh.set(t);
                    }
                    try {
                        ctx.progress(-1);
                    } catch (Throwable t) {
                        negative.set(t);
                    }
                    ctx.progress(100);
                    return Result.done();
                })
                .runDue();

        assertThat(tooHigh.get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("101");
        assertThat(negative.get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThat(job(queue, "j").progress()).isEqualTo(100);
    }

    @Test
    void processorReturningNullOrNeverReturningFailsWithAClearReason() {
        JobQueue<String> queue = newQueue();
        queue.add("null", "p", withId("returns-null"));
        queue.add(
                "hang", "p", id("never-returns").timeout(Duration.ofSeconds(1)).build());
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("null")) {
                        return null;
                    }
                    clock.advance(Duration.ofHours(1)); // as if it hung
                    return null;
                })
                .runDue();

        assertThat(job(queue, "returns-null").failure().reason()).contains("returned null");
        assertThat(job(queue, "never-returns").failure().reason()).contains("timed out");
    }

    @Test
    void nullArgumentsToTheQueueAreIllegalArgumentsNamingTheArgument() throws Exception {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        Schedule everyMinute = Schedule.fixedRate(Duration.ofMinutes(1));
        NewJob<String> template = new NewJob<>("tick", "p");

        assertRejected(() -> queue.addAsync(null, "p"), "job name", "null");
        assertRejected(() -> queue.addAsync("n", "p", null), "options", "null");
        assertRejected(() -> queue.addBulkAsync(null), "jobs", "null");
        assertRejected(() -> queue.whenFinished(null), "job id", "null");
        assertRejected(() -> queue.awaitIdle(null), "timeout", "null");
        assertRejected(() -> queue.awaitListeners(null), "timeout", "null");
        assertRejected(() -> queue.awaitListeners(Duration.ofSeconds(-1)), "timeout", "zero or positive", "-1 s");
        assertRejected(() -> queue.job(null), "job id", "null");
        assertRejected(() -> queue.remove(null), "job id", "null");
        assertRejected(() -> queue.retry(null), "job id", "null");
        assertRejected(() -> queue.retry("j", null), "FAILED", "COMPLETED", "null");
        assertRejected(() -> queue.jobs(null, 0, 10), "state", "null");
        assertRejected(() -> queue.clean(null, SECOND_DURATION), "COMPLETED", "FAILED", "null");
        assertRejected(() -> queue.clean(JobState.COMPLETED, null), "age", "null");
        assertRejected(() -> queue.worker(null, WorkerOptions.manual()), "processor", "null");
        assertRejected(() -> queue.worker(ctx -> Result.done(), null), "options", "null");
        assertRejected(() -> queue.repeat(null, everyMinute, template), "repeatable job id", "null");
        assertRejected(() -> queue.repeat("r", null, template), "schedule", "null");
        assertRejected(() -> queue.repeat("r", everyMinute, null), "template", "null");
        assertRejected(() -> queue.clearGroupLimits(null), "group", "null");
        assertRejected(() -> queue.addListener(null), "listener", "null");
        assertRejected(() -> queue.removeRepeatable(null), "repeatable job id", "null");
        assertRejected(() -> manualWorker(queue, completing()).close(null), "deadline", "null");

        assertNothingAdded(queue, events);
        assertThat(queue.repeatables()).isEmpty();
    }

    @Test
    void aRepeatableIdTooLongForItsRunIdsIsRejectedAndNothingIsRegistered() {
        JobQueue<String> queue = newQueue();
        NewJob<String> template = new NewJob<>("tick", "p");
        Schedule everyMinute = Schedule.fixedRate(Duration.ofMinutes(1));

        assertRejected(
                () -> queue.repeat("r".repeat(481), everyMinute, template), "repeatable job id", "1 to 480", "481");
        assertRejected(() -> queue.repeat("", everyMinute, template), "repeatable job id", "empty");
        assertThat(queue.repeatables()).isEmpty();
        assertThat(queue.counts().total()).isZero();

        String longest = "r".repeat(480);
        queue.repeat(longest, everyMinute, template);
        assertThat(queue.counts().total())
                .as("the run due now and the next one")
                .isEqualTo(2);
        clock.advance(Duration.ofMinutes(1));
        assertThat(queue.repeatables()).hasSize(1);
        assertThat(queue.counts().total())
                .as("and the one after, once the second fell due")
                .isEqualTo(3);
        assertThat(queue.job("repeat:" + longest + ":" + clock.instant().toEpochMilli()))
                .isPresent();
    }
}
