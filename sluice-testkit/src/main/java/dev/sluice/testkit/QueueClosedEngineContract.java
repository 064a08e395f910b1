package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueOptions.WhenFull;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Queues and workers after {@link dev.sluice.Sluice#close()}: every method of {@link JobQueue} and {@link
 * Worker} throws an {@link IllegalStateException} that names the closed engine, at the call (the asynchronous
 * ones too) and before any check of its arguments; what the object is ({@code name()}, {@code options()},
 * {@code toString()}, {@code equals}, {@code hashCode}) stays readable, and closing a worker again does
 * nothing. Callers waiting when the engine closes (a producer waiting for room) fail the same way.
 */
public abstract class QueueClosedEngineContract extends QueueContractSupport {
    /** The methods that stay readable after close; every other method of the interface must refuse. */
    private static final Set<String> READABLE_QUEUE_METHODS = Set.of("name()", "options()", "codec()");

    private static final Set<String> CLOSING_WORKER_METHODS =
            Set.of("close()", "close(Duration)", "closeAsync(Duration)");

    /** For subclasses, one per engine. */
    protected QueueClosedEngineContract() {}

    private void assertClosed(String what, ThrowingCallable call) {
        assertThatThrownBy(call)
                .as(what)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString())
                .hasMessageContaining("closed");
    }

    /** Each method of {@code type} as {@code name(SimpleParameterType,...)}. */
    private static Set<String> signatures(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .filter(m -> !m.isSynthetic())
                .map(QueueClosedEngineContract::signature)
                .collect(Collectors.toSet());
    }

    private static String signature(Method m) {
        return m.getName()
                + Arrays.stream(m.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(",", "(", ")"));
    }

    @Test
    void everyMethodOfAQueueRefusesAfterCloseButWhatItIs() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("done"));
        manualWorker(queue, completing()).runDue();
        queue.add("n", "p", withId("waiting"));
        QueueListener<String> listener = new Events();
        queue.addListener(listener);
        NewJob<String> job = new NewJob<>("n", "p", withId("new"));

        engine.close();

        Map<String, ThrowingCallable> uses = new LinkedHashMap<>();
        uses.put("add(String,Object)", () -> queue.add("n", "p"));
        uses.put("add(String,Object,JobOptions)", () -> queue.add("n", "p", withId("new")));
        uses.put("addBulk(List)", () -> queue.addBulk(List.of(job)));
        uses.put("addAsync(String,Object)", () -> queue.addAsync("n", "p"));
        uses.put("addAsync(String,Object,JobOptions)", () -> queue.addAsync("n", "p", withId("new")));
        uses.put("addBulkAsync(List)", () -> queue.addBulkAsync(List.of(job)));
        uses.put("whenFinished(String)", () -> queue.whenFinished("waiting"));
        uses.put("awaitIdle(Duration)", () -> queue.awaitIdle(Duration.ZERO));
        uses.put("job(String)", () -> queue.job("waiting"));
        uses.put("payloadBytes(String)", () -> queue.payloadBytes("waiting"));
        uses.put("counts()", queue::counts);
        uses.put("jobs(JobState,int,int)", () -> queue.jobs(JobState.WAITING, 0, 10));
        uses.put("jobs(JobState,String,int)", () -> queue.jobs(JobState.WAITING, null, 10));
        uses.put("pause()", queue::pause);
        uses.put("resume()", queue::resume);
        uses.put("isPaused()", queue::isPaused);
        uses.put("remove(String)", () -> queue.remove("waiting"));
        uses.put("retry(String)", () -> queue.retry("done"));
        uses.put("retry(String,JobState)", () -> queue.retry("done", JobState.COMPLETED));
        uses.put("retryFailed()", queue::retryFailed);
        uses.put("clean(JobState,Duration)", () -> queue.clean(JobState.COMPLETED, Duration.ZERO));
        uses.put("drain(boolean)", () -> queue.drain(true));
        uses.put("promote(String)", () -> queue.promote("waiting"));
        uses.put("obliterate(boolean)", () -> queue.obliterate(true));
        uses.put("workers()", queue::workers);
        uses.put("pauseGroup(String)", () -> queue.pauseGroup("g"));
        uses.put("resumeGroup(String)", () -> queue.resumeGroup("g"));
        uses.put("worker(Processor,WorkerOptions)", () -> queue.worker(completing(), WorkerOptions.manual()));
        uses.put(
                "repeat(String,Schedule,NewJob)",
                () -> queue.repeat("r", Schedule.fixedRate(Duration.ofMinutes(1)), job));
        uses.put("removeRepeatable(String)", () -> queue.removeRepeatable("r"));
        uses.put("repeatables()", queue::repeatables);
        uses.put("setRate(RatePolicy)", () -> queue.setRate(TokenBucket.perSecond(1)));
        uses.put("followGauge(String,double,DoubleSupplier)", () -> queue.followGauge("pool", 1, () -> 0));
        uses.put("unfollowGauge(String)", () -> queue.unfollowGauge("pool"));
        uses.put("setConcurrency(int)", () -> queue.setConcurrency(1));
        uses.put("setGroupDefaults(GroupLimits)", () -> queue.setGroupDefaults(GroupLimits.none()));
        uses.put("setGroupLimits(String,GroupLimits)", () -> queue.setGroupLimits("g", GroupLimits.none()));
        uses.put("clearGroupLimits(String)", () -> queue.clearGroupLimits("g"));
        uses.put("groupLimits(String)", () -> queue.groupLimits("g"));
        uses.put("addListener(QueueListener)", () -> queue.addListener(new Events()));
        uses.put("removeListener(QueueListener)", () -> queue.removeListener(listener));
        uses.put("awaitListeners(Duration)", () -> queue.awaitListeners(Duration.ZERO));
        uses.put("addMetrics(QueueMetrics)", () -> queue.addMetrics(new QueueMetrics() {}));
        uses.put("removeMetrics(QueueMetrics)", () -> queue.removeMetrics(new QueueMetrics() {}));
        uses.put("stats()", queue::stats);
        uses.put("stats(String)", () -> queue.stats("g"));
        uses.put("groups()", queue::groups);
        uses.put("groups(String,String,int)", () -> queue.groups("", null, 10));

        assertThat(uses.keySet())
                .as("every method of JobQueue but what it is, here")
                .containsExactlyInAnyOrderElementsOf(signatures(JobQueue.class).stream()
                        .filter(s -> !READABLE_QUEUE_METHODS.contains(s))
                        .toList());
        uses.forEach(this::assertClosed);
        assertThat(queue.name()).isEqualTo(QUEUE);
        assertThat(queue.options()).isEqualTo(QueueOptions.defaults());
    }

    @Test
    void aClosedQueuesOptionsAreTheLimitsLastRead() {
        JobQueue<String> queue = newQueue();
        queue.setConcurrency(3);
        assertThat(queue.options().concurrency()).isEqualTo(3);

        engine.close();

        assertThat(queue.options().concurrency()).isEqualTo(3);
        assertThat(queue.options().maxQueued()).isEqualTo(QueueOptions.DEFAULT_MAX_QUEUED);
    }

    @Test
    void aClosedQueueSaysWhatItIsAndEqualsOnlyItself() {
        JobQueue<String> queue = newQueue();
        JobQueue<String> sameName = newQueue();
        int hash = queue.hashCode();

        engine.close();

        assertThat(queue.toString()).contains(QUEUE).doesNotContain("@");
        assertThat(queue).isEqualTo(sameName).hasSameHashCodeAs(sameName);
        assertThat(queue.hashCode()).isEqualTo(hash);
        assertThat(queue).isNotEqualTo(engineOn(clock).queue(QUEUE, Codec.utf8()));
    }

    @Test
    void everyMethodOfAWorkerRefusesAfterCloseButClosingAgain() {
        JobQueue<String> queue = newQueue();
        Worker<String> manual = manualWorker(queue, completing());
        Worker<String> started = startedWorker(queue, completing(), 2);

        engine.close();

        for (Worker<String> worker : List.of(manual, started)) {
            Map<String, ThrowingCallable> uses = new LinkedHashMap<>();
            uses.put("start()", worker::start);
            uses.put("runDue()", worker::runDue);
            uses.put("active()", worker::active);
            assertThat(uses.keySet())
                    .as("every method of Worker but closing, here")
                    .containsExactlyInAnyOrderElementsOf(signatures(Worker.class).stream()
                            .filter(s -> !CLOSING_WORKER_METHODS.contains(s))
                            .toList());
            uses.forEach(this::assertClosed);

            Worker.CloseReport report = worker.closeAsync(Duration.ZERO).join();
            assertThat(report).isEqualTo(new Worker.CloseReport(0, 0));
            assertThat(worker.close(Duration.ofSeconds(1))).isEqualTo(report);
            assertThatCode(worker::close).doesNotThrowAnyException();
            assertThat(worker.toString()).contains(QUEUE).doesNotContain("@");
        }
    }

    @Test
    void aClosedEngineIsNamedBeforeAnyBadArgument() {
        JobQueue<String> queue = newQueue();

        engine.close();

        assertClosed("add", () -> queue.add(null, null, null));
        assertClosed("addAsync", () -> queue.addAsync(null, null, null));
        assertClosed("addBulk", () -> queue.addBulk(null));
        assertClosed("job", () -> queue.job(null));
        assertClosed("jobs", () -> queue.jobs(null, -1, 0));
        assertClosed("jobs", () -> queue.jobs(null, "not a cursor", 0));
        assertClosed("worker", () -> queue.worker(null, null));
        assertClosed("setConcurrency", () -> queue.setConcurrency(0));
        assertClosed("addListener", () -> queue.addListener(null));
    }

    @Test
    void aProducerWaitingForRoomFailsWithTheClosedEngine() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .maxQueued(1)
                .whenFull(WhenFull.block(Duration.ofHours(1)))
                .build());
        queue.add("n", "p", withId("a"));
        Async<Added<String>> blocked = async(() -> queue.add("n", "p", withId("b")));
        eventually().until(blocked::isParked);

        engine.close();

        assertThat(failureOf(blocked.future()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString())
                .hasMessageContaining("closed");
    }

    @Test
    void aQueueOpenedWhileTheEngineClosesRefusesEveryUseOnceCloseReturns() throws InterruptedException {
        for (int rep = 0; rep < 200; rep++) {
            Sluice closing = engineOn(clock);
            List<JobQueue<String>> opened = new CopyOnWriteArrayList<>();
            Thread opener = Thread.ofPlatform().start(() -> {
                for (int i = 0; ; i++) {
                    try {
                        opened.add(closing.queue("q" + i, Codec.utf8()));
                    } catch (IllegalStateException closed) {
                        return;
                    }
                }
            });

            closing.close();

            opener.join();
            for (JobQueue<String> queue : opened) {
                assertThatThrownBy(() -> queue.add("n", "p"))
                        .as("rep %d, %s", rep, queue.name())
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining(closing.toString());
            }
        }
    }
}
