package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.Worker.CloseReport;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real threads on an engine on {@link SluiceClock#system()}: several producers and started workers racing. These
 * tests check invariants only, never timings: every job runs exactly once, counts always add up, and a
 * close under load loses nothing.
 */
public abstract class QueueConcurrencyContract extends QueueContractSupport {
    private static final int PRODUCERS = 4;

    private ExecutorService producers;

    /** For subclasses, one per engine. */
    protected QueueConcurrencyContract() {}

    /** Starts the pool of producer threads of this test. */
    @BeforeEach
    protected final void startProducers() {
        producers = Executors.newFixedThreadPool(PRODUCERS);
    }

    /**
     * Stops the producer threads and checks they stopped within 10 s.
     *
     * @throws InterruptedException if interrupted while waiting for them
     */
    @AfterEach
    protected final void stopProducers() throws InterruptedException {
        producers.shutdownNow();
        assertThat(producers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private JobQueue<String> systemQueue(String name) {
        return engineOn(SluiceClock.system())
                .queue(
                        name,
                        Codec.utf8(),
                        QueueOptions.builder()
                                .jobDefaults(JobOptions.builder()
                                        .keepCompleted(Retention.keepAll())
                                        .keepFailed(Retention.keepAll())
                                        .build())
                                .build());
    }

    /**
     * {@value #PRODUCERS} producers each add {@code perProducer} jobs (ids p-i), some one by one and some in
     * bulks of 10, spread over 8 groups and the ungrouped jobs; returns when all are added.
     */
    private List<String> produce(JobQueue<String> queue, int perProducer) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<String>>> futures = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int producer = p;
            futures.add(producers.submit(() -> {
                go.await();
                List<String> ids = new ArrayList<>();
                List<NewJob<String>> bulk = new ArrayList<>();
                for (int i = 0; i < perProducer; i++) {
                    String id = producer + "-" + i;
                    ids.add(id);
                    JobOptions options = i % 9 == 0 ? withId(id) : inGroup(id, "g" + (i % 8));
                    if (producer % 2 == 0) {
                        queue.add("n", id, options);
                    } else {
                        bulk.add(new NewJob<>("n", id, options));
                        if (bulk.size() == 10) {
                            queue.addBulk(bulk);
                            bulk = new ArrayList<>();
                        }
                    }
                }
                if (!bulk.isEmpty()) {
                    queue.addBulk(bulk);
                }
                return ids;
            }));
        }
        go.countDown();
        List<String> all = new ArrayList<>();
        for (Future<List<String>> f : futures) {
            all.addAll(f.get(20, TimeUnit.SECONDS));
        }
        return all;
    }

    @ParameterizedTest(name = "worker concurrency {0}")
    @ValueSource(ints = {10, 50, 100})
    void everyJobRunsExactlyOnceWithSeveralProducers(int concurrency) throws Exception {
        JobQueue<String> queue = systemQueue("race" + concurrency);
        Set<String> ran = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger wrongPayload = new AtomicInteger();
        startedWorker(
                queue,
                ctx -> {
                    if (!ran.add(ctx.job().id())) {
                        duplicates.incrementAndGet();
                    }
                    if (!ctx.payload().equals(ctx.job().id())) {
                        wrongPayload.incrementAndGet();
                    }
                    if (ThreadLocalRandom.current().nextInt(4) == 0) {
                        Thread.yield();
                    }
                    return Result.done();
                },
                concurrency);

        List<String> ids = produce(queue, 1_000);
        int total = ids.size();

        List<String> violations = new CopyOnWriteArrayList<>();
        long[] lastCompleted = {0};
        eventually().atMost(Duration.ofSeconds(30)).until(() -> {
            JobCounts counts = queue.counts();
            if (counts.total() != total) {
                violations.add("total changed while only processing: " + counts);
            }
            if (counts.active() > concurrency) {
                violations.add("more active than the worker's concurrency: " + counts);
            }
            if (counts.completed() < lastCompleted[0]) {
                violations.add("completed went back from " + lastCompleted[0] + ": " + counts);
            }
            if (counts.failed() + counts.delayed() != 0) {
                violations.add("failed or delayed jobs: " + counts);
            }
            lastCompleted[0] = counts.completed();
            return counts.completed() == total;
        });

        assertThat(violations).isEmpty();
        assertThat(duplicates).hasValue(0);
        assertThat(wrongPayload).hasValue(0);
        assertThat(ran).hasSize(total).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, total, 0));
        assertThat(queue.stats().completed()).isEqualTo(total);
    }

    @Test
    void countsAddUpWhileProducersAndWorkersRace() throws Exception {
        JobQueue<String> queue = systemQueue("counts");
        startedWorker(queue, completing(), 16);
        Async<List<String>> production = async(() -> {
            try {
                return produce(queue, 1_000);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        List<String> violations = new CopyOnWriteArrayList<>();
        long[] lastTotal = {0};
        eventually().atMost(Duration.ofSeconds(30)).until(() -> {
            JobCounts counts = queue.counts();
            if (counts.total() < lastTotal[0] || counts.total() > PRODUCERS * 1_000L) {
                violations.add("total " + counts.total() + " after " + lastTotal[0] + ": " + counts);
            }
            lastTotal[0] = counts.total();
            return production.future().isDone();
        });
        int total = production.future().get().size();
        eventually().until(() -> queue.counts().completed() == total);

        assertThat(violations).isEmpty();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, total, 0));
    }

    @Test
    void retriedJobsAcrossTwoWorkersFinishExactlyOnce() throws Exception {
        JobQueue<String> queue = engineOn(SluiceClock.system())
                .queue(
                        "retries",
                        Codec.utf8(),
                        QueueOptions.builder()
                                .jobDefaults(JobOptions.builder()
                                        .attempts(3)
                                        .keepCompleted(Retention.keepAll())
                                        .keepFailed(Retention.keepAll())
                                        .build())
                                .build());
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        Set<String> completions = ConcurrentHashMap.newKeySet();
        AtomicInteger doubleCompletions = new AtomicInteger();
        Processor<String> flaky = ctx -> {
            int call = calls.computeIfAbsent(ctx.job().id(), k -> new AtomicInteger())
                    .incrementAndGet();
            if (call != ctx.attempt()) {
                throw new IllegalStateException("attempt " + ctx.attempt() + " but call " + call);
            }
            if (call == 1 && ThreadLocalRandom.current().nextBoolean()) {
                throw new Boom("first attempts fail half the time");
            }
            if (!completions.add(ctx.job().id())) {
                doubleCompletions.incrementAndGet();
            }
            return Result.done();
        };
        startedWorker(queue, flaky, 20);
        startedWorker(queue, flaky, 20);

        List<String> ids = produce(queue, 500);
        eventually().until(() -> queue.counts().completed() == ids.size());

        assertThat(doubleCompletions).hasValue(0);
        assertThat(completions).containsExactlyInAnyOrderElementsOf(ids);
        for (String id : ids) {
            Job<String> job = job(queue, id);
            assertThat(job.state()).isEqualTo(JobState.COMPLETED);
            assertThat(job.attemptsMade())
                    .as("attempts of %s", id)
                    .isEqualTo(calls.get(id).get());
            assertThat(job.attempts()).hasSize(job.attemptsMade());
        }
    }

    @Test
    void closeUnderLoadLosesNothing() throws Exception {
        JobQueue<String> queue = systemQueue("closing");
        int total = 3_000;
        Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onCompleted(Job<String> job) {
                completions.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            }
        });
        queue.addBulk(IntStream.range(0, total)
                .mapToObj(i -> new NewJob<>("n", "p", i % 2 == 0 ? withId("j" + i) : inGroup("j" + i, "g" + i % 5)))
                .toList());
        Processor<String> work = ctx -> {
            LockSupport.parkNanos(200_000); // a fifth of a millisecond of "I/O"
            if (Thread.interrupted()) {
                throw new InterruptedException("worker closing");
            }
            return Result.done();
        };
        Worker<String> worker = startedWorker(queue, work, 64);
        eventually().until(() -> queue.counts().completed() >= 300);

        CloseReport report = worker.close(Duration.ofMillis(1));

        JobCounts afterClose = queue.counts();
        assertThat(afterClose.active()).isZero();
        assertThat(afterClose.failed()).isZero();
        assertThat(afterClose.total()).isEqualTo(total);
        assertThat(afterClose.waiting() + afterClose.completed()).isEqualTo(total);
        long interrupted = queue.jobs(JobState.WAITING, 0, 10_000).stream()
                .filter(job -> job.attempts().stream().anyMatch(a -> a.outcome() == Outcome.INTERRUPTED))
                .count();
        assertThat(interrupted).as("jobs returned by the close, %s", report).isEqualTo(report.returned());

        Worker<String> second = startedWorker(queue, work, 64);
        eventually().until(() -> queue.counts().completed() == total);
        eventually().until(() -> completions.size() >= total); // events come just after the change

        assertThat(completions).hasSize(total);
        assertThat(completions.values()).allMatch(n -> n.get() == 1, "completed exactly once");
        assertThat(second.close(Duration.ofSeconds(5))).isEqualTo(new CloseReport(0, 0));
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, total, 0));
    }

    @Test
    void engineCloseUnderLoadDoesNotHang() throws Exception {
        Sluice systemEngine = newEngine(SluiceClock.system());
        JobQueue<String> queue = systemEngine.queue("engine-close", Codec.utf8());
        AtomicInteger ran = new AtomicInteger();
        queue.worker(
                ctx -> {
                    ran.incrementAndGet();
                    return Result.done();
                },
                WorkerOptions.concurrency(32));
        queue.addBulk(IntStream.range(0, 2_000)
                .mapToObj(i -> new NewJob<>("n", "p", withId("j" + i)))
                .toList());
        eventually().until(() -> ran.get() > 100);

        Future<?> closing = producers.submit(systemEngine::close);

        closing.get(20, TimeUnit.SECONDS);
        assertThat(closing).isDone();
    }
}
