package dev.sluice.testkit;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A processor that blocks each job until the test lets it go, by id or all at once, and records which
 * jobs entered, which were interrupted, and how many of each group ran at once.
 */
public final class Blocker implements Processor<String> {
    /** Job ids in the order their attempts entered the processor. */
    public final List<String> entered = new CopyOnWriteArrayList<>();

    /** Job ids whose attempt was interrupted while blocked. */
    public final Set<String> interrupted = ConcurrentHashMap.newKeySet();

    /** Job ids whose attempt returned (completed), in order. */
    public final List<String> returned = new CopyOnWriteArrayList<>();

    /** For each attempt that entered, the number of attempts of its group running at that moment, itself included. */
    public final List<Integer> runningAtEntry = new CopyOnWriteArrayList<>();

    private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> maxRunning = new ConcurrentHashMap<>();
    private final AtomicInteger runningTotal = new AtomicInteger();
    private final AtomicInteger maxRunningTotal = new AtomicInteger();
    private volatile boolean allReleased;

    /** A blocker that no job has entered yet, with every job held. */
    public Blocker() {}

    @Override
    public Result process(JobContext<String> ctx) throws InterruptedException {
        Job<String> job = ctx.job();
        String group = String.valueOf(job.group());
        int inGroup = running.computeIfAbsent(group, g -> new AtomicInteger()).incrementAndGet();
        maxRunning.computeIfAbsent(group, g -> new AtomicInteger()).accumulateAndGet(inGroup, Math::max);
        maxRunningTotal.accumulateAndGet(runningTotal.incrementAndGet(), Math::max);
        runningAtEntry.add(inGroup);
        entered.add(job.id());
        try {
            gate(job.id()).await();
        } catch (InterruptedException e) {
            interrupted.add(job.id());
            throw e;
        } finally {
            running.get(group).decrementAndGet();
            runningTotal.decrementAndGet();
        }
        returned.add(job.id());
        return Result.done();
    }

    private synchronized CountDownLatch gate(String id) {
        return gates.computeIfAbsent(id, k -> new CountDownLatch(allReleased ? 0 : 1));
    }

    /**
     * Lets job {@code id} complete (now, or as soon as it runs).
     *
     * @param id the job id
     */
    public void release(String id) {
        gate(id).countDown();
    }

    /** Lets every job complete, now and from now on. */
    public synchronized void releaseAll() {
        allReleased = true;
        gates.values().forEach(CountDownLatch::countDown);
    }

    /**
     * How many attempts of {@code group} ({@code null}: ungrouped) are inside the processor now.
     *
     * @param group the group, or {@code null} for ungrouped jobs
     * @return the number of attempts of the group inside the processor
     */
    public int running(String group) {
        AtomicInteger n = running.get(String.valueOf(group));
        return n == null ? 0 : n.get();
    }

    /**
     * The most attempts of {@code group} that were inside the processor at once.
     *
     * @param group the group, or {@code null} for ungrouped jobs
     * @return the largest number of attempts of the group inside the processor at once
     */
    public int maxRunning(String group) {
        AtomicInteger n = maxRunning.get(String.valueOf(group));
        return n == null ? 0 : n.get();
    }

    /**
     * How many attempts are inside the processor now.
     *
     * @return the number of attempts inside the processor
     */
    public int runningTotal() {
        return runningTotal.get();
    }

    /**
     * The most attempts that were inside the processor at once.
     *
     * @return the largest number of attempts inside the processor at once
     */
    public int maxRunningTotal() {
        return maxRunningTotal.get();
    }

    /**
     * How many attempts of jobs whose id starts with {@code prefix} entered.
     *
     * @param prefix the start of the job ids
     * @return the number of attempts of those jobs that entered
     */
    public long enteredWithPrefix(String prefix) {
        return entered.stream().filter(id -> id.startsWith(prefix)).count();
    }
}
