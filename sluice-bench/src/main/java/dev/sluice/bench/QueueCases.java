package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The timed pieces of {@link QueueLocalBench}. Each method builds everything it needs from scratch (a fresh
 * in-memory engine, or a fresh executor), times one batch of {@code jobs} jobs, tears down what it built, and
 * returns what {@link QueueMeter} read around the timed part only (wall and CPU time, allocation, collections).
 */
final class QueueCases {
    /** The job name of every job, as in the Redis workloads. */
    static final String JOB_NAME = "bench";

    /** A 100-byte (ASCII, so 100 UTF-8 bytes) JSON payload, the size used by the Redis workloads. */
    static final String PAYLOAD = payload(100);

    /** Bulk adds go in batches of this many jobs. */
    static final int BULK_BATCH = 500;

    /** How long one case may take before the run is declared stuck. */
    static final Duration STUCK = Duration.ofMinutes(2);

    private static final AtomicInteger QUEUES = new AtomicInteger();

    private QueueCases() {}

    static String payload(int bytes) {
        StringBuilder sb = new StringBuilder("{\"user\":\"u-0042\",\"action\":\"noop\",\"pad\":\"");
        String tail = "\"}";
        while (sb.length() < bytes - tail.length()) {
            sb.append((char) ('a' + sb.length() % 26));
        }
        sb.append(tail);
        if (sb.length() != bytes) {
            throw new AssertionError("payload is " + sb.length() + " bytes");
        }
        return sb.toString();
    }

    /** A fresh queue name, so no case ever reuses a queue (each case also uses a fresh engine). */
    private static String queueName() {
        return "bench-" + QUEUES.incrementAndGet();
    }

    /** The bulk batches of {@code jobs} jobs, built before the clock starts. */
    static List<List<NewJob<String>>> batches(int jobs) {
        List<List<NewJob<String>>> batches = new ArrayList<>();
        for (int start = 0; start < jobs; start += BULK_BATCH) {
            int size = Math.min(BULK_BATCH, jobs - start);
            List<NewJob<String>> batch = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                batch.add(new NewJob<>(JOB_NAME, PAYLOAD));
            }
            batches.add(batch);
        }
        return batches;
    }

    // ---- enqueue ----

    /** Sluice: {@code jobs} single {@code add} calls from this thread. */
    static QueueMeter.Timing sluiceAdd(int jobs) {
        try (Sluice engine = Sluice.inMemory()) {
            JobQueue<String> queue = engine.queue(queueName(), Codec.utf8());
            QueueLocalBench.settle();
            QueueMeter meter = QueueMeter.start();
            for (int i = 0; i < jobs; i++) {
                queue.add(JOB_NAME, PAYLOAD);
            }
            QueueMeter.Timing elapsed = meter.stop();
            expectWaiting(queue, jobs);
            return elapsed;
        }
    }

    /** Sluice: {@code addBulk} in batches of {@value #BULK_BATCH} from this thread (batches built untimed). */
    static QueueMeter.Timing sluiceAddBulk(int jobs) {
        List<List<NewJob<String>>> batches = batches(jobs);
        try (Sluice engine = Sluice.inMemory()) {
            JobQueue<String> queue = engine.queue(queueName(), Codec.utf8());
            QueueLocalBench.settle();
            QueueMeter meter = QueueMeter.start();
            for (List<NewJob<String>> batch : batches) {
                queue.addBulk(batch);
            }
            QueueMeter.Timing elapsed = meter.stop();
            expectWaiting(queue, jobs);
            return elapsed;
        }
    }

    /**
     * Reference for enqueue: {@code execute} of {@code jobs} fresh no-op tasks onto a one-thread
     * ThreadPoolExecutor whose thread is held, so every task lands in its LinkedBlockingQueue.
     */
    static QueueMeter.Timing executorExecute(int jobs) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(jobs);
        ThreadPoolExecutor pool = executor(1, false);
        try {
            pool.execute(() -> awaitQuietly(gate));
            QueueLocalBench.settle();
            QueueMeter meter = QueueMeter.start();
            for (int i = 0; i < jobs; i++) {
                pool.execute(new NoOpTask(done));
            }
            QueueMeter.Timing elapsed = meter.stop();
            gate.countDown();
            await(done, "executor enqueue drain");
            return elapsed;
        } finally {
            shutdown(pool);
        }
    }

    // ---- processing ----

    /**
     * Sluice: {@code jobs} jobs already waiting (added untimed with addBulk); the clock runs from creating a
     * worker of {@code concurrency} with a no-op processor until every job has completed: the processor has
     * counted the last one and the queue shows nothing waiting or active.
     */
    static QueueMeter.Timing sluiceProcess(int jobs, int concurrency) throws InterruptedException {
        try (Sluice engine = Sluice.inMemory()) {
            JobQueue<String> queue = engine.queue(queueName(), Codec.utf8());
            for (List<NewJob<String>> batch : batches(jobs)) {
                queue.addBulk(batch);
            }
            expectWaiting(queue, jobs);
            CountDownLatch done = new CountDownLatch(jobs);
            QueueLocalBench.settle();
            QueueMeter meter = QueueMeter.start();
            Worker<String> worker = queue.worker(
                    job -> {
                        done.countDown();
                        return Result.done();
                    },
                    WorkerOptions.concurrency(concurrency));
            await(done, "sluice c" + concurrency);
            awaitIdle(queue);
            QueueMeter.Timing elapsed = meter.stop();
            worker.close();
            return elapsed;
        }
    }

    /**
     * A ThreadPoolExecutor of {@code threads} threads (platform, or virtual when {@code virtual}): its threads
     * are held on a gate while {@code jobs} fresh no-op tasks are queued (untimed); the clock runs from opening
     * the gate until the last task has run.
     */
    static QueueMeter.Timing executorProcess(int jobs, int threads, boolean virtual) throws InterruptedException {
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(jobs);
        ThreadPoolExecutor pool = executor(threads, virtual);
        try {
            for (int i = 0; i < threads; i++) {
                pool.execute(() -> awaitQuietly(gate));
            }
            for (int i = 0; i < jobs; i++) {
                pool.execute(new NoOpTask(done));
            }
            if (pool.getPoolSize() != threads || pool.getQueue().size() != jobs) {
                throw new IllegalStateException("pool not primed: " + pool);
            }
            QueueLocalBench.settle();
            QueueMeter meter = QueueMeter.start();
            gate.countDown();
            await(done, (virtual ? "virtual" : "platform") + " executor " + threads);
            return meter.stop();
        } finally {
            shutdown(pool);
        }
    }

    /** The same no-op work the Sluice processor does: count the job. A fresh object per task, like a job. */
    private record NoOpTask(CountDownLatch done) implements Runnable {
        @Override
        public void run() {
            done.countDown();
        }
    }

    static ThreadPoolExecutor executor(int threads, boolean virtual) {
        ThreadFactory factory = virtual
                ? Thread.ofVirtual().name("vtpe-", 0).factory()
                : Thread.ofPlatform().name("tpe-", 0).daemon(true).factory();
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), factory);
    }

    private static void shutdown(ThreadPoolExecutor pool) throws InterruptedException {
        pool.shutdown();
        if (!pool.awaitTermination(STUCK.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException("executor did not terminate: " + pool);
        }
    }

    private static void awaitQuietly(CountDownLatch gate) {
        try {
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(STUCK.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException(what + ": stuck with " + latch.getCount() + " jobs not run after " + STUCK);
        }
    }

    /** Waits until the queue shows no job waiting, delayed or active (the last completions are committed). */
    private static void awaitIdle(JobQueue<String> queue) {
        long deadline = System.nanoTime() + STUCK.toNanos();
        while (true) {
            JobCounts counts = queue.counts();
            if (counts.waiting() == 0 && counts.delayed() == 0 && counts.active() == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("queue not idle after " + STUCK + ": " + counts);
            }
            Thread.yield();
        }
    }

    private static void expectWaiting(JobQueue<String> queue, int jobs) {
        JobCounts counts = queue.counts();
        if (counts.waiting() != jobs || counts.total() != jobs) {
            throw new IllegalStateException("expected " + jobs + " waiting jobs, queue holds " + counts);
        }
    }
}
