package dev.sluice.redis;

import dev.sluice.SluiceException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A producer thread that adds jobs {@code <name>-0}, {@code <name>-1}, ... and keeps each until an add of it is
 * acknowledged, trying again with the same id after a {@link SluiceException}, until told to stop. A job's payload
 * is its id, so that a processor need not ask Redis for it.
 */
final class RetryingProducer {
    /** The ids acknowledged, in order. */
    final List<String> acknowledged = new CopyOnWriteArrayList<>();
    /** When each acknowledged add began and returned, in {@link System#nanoTime()}. */
    final List<long[]> acknowledgedAdds = new CopyOnWriteArrayList<>();

    /** The messages of the failed adds. */
    final List<String> failures = new CopyOnWriteArrayList<>();
    /** How long each failed add took. */
    final List<Duration> failedAddTimes = new CopyOnWriteArrayList<>();

    private final JobQueue<String> queue;
    private final String name;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    private RetryingProducer(JobQueue<String> queue, String name) {
        this.queue = queue;
        this.name = name;
        this.thread = Thread.ofPlatform().name("producer-" + name).start(this::run);
    }

    /** Starts one producer for each name. */
    static List<RetryingProducer> start(JobQueue<String> queue, String... names) {
        List<RetryingProducer> producers = new ArrayList<>();
        for (String name : names) {
            producers.add(new RetryingProducer(queue, name));
        }
        return producers;
    }

    /** How many adds begun after {@code nanos} were acknowledged. */
    long acknowledgedAfter(long nanos) {
        return acknowledgedAdds.stream().filter(add -> add[0] > nanos).count();
    }

    /** Stops the producers once their current job is acknowledged, and waits for them. */
    static void stop(List<RetryingProducer> producers) throws InterruptedException {
        producers.forEach(p -> p.stop.set(true));
        for (RetryingProducer producer : producers) {
            if (!producer.thread.join(Duration.ofSeconds(30))) {
                throw new AssertionError(producer.thread.getName() + " did not stop within 30 s");
            }
        }
    }

    /** Every producer's values of {@code field}, in one list. */
    static <T> List<T> all(
            List<RetryingProducer> producers, java.util.function.Function<RetryingProducer, List<T>> field) {
        List<T> all = new ArrayList<>();
        producers.forEach(p -> all.addAll(field.apply(p)));
        return all;
    }

    private void run() {
        for (int i = 0; !stop.get(); i++) {
            String id = name + "-" + i;
            while (true) {
                long started = System.nanoTime();
                try {
                    queue.add("n", id, JobOptions.builder().jobId(id).build());
                    acknowledgedAdds.add(new long[] {started, System.nanoTime()});
                    acknowledged.add(id);
                    break;
                } catch (SluiceException e) {
                    failedAddTimes.add(Duration.ofNanos(System.nanoTime() - started));
                    failures.add(e.getMessage());
                }
                pace();
            }
            pace();
        }
    }

    /** A producer's own pace, and its back-off after a failed add. */
    private static void pace() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
