package dev.sluice.spring;

import dev.sluice.queue.Processor;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The workers of the queues declared with a {@code worker.processor}, and of the {@link SluiceWorker} processors:
 * they start with the application context
 * (before the web server takes requests) and close when it stops (after the web server stopped taking them),
 * giving running jobs {@code sluice.shutdown.deadline}; jobs still running then go back to waiting. A stopped
 * context that starts again gets new workers. While the queues wait for a Redis that was down when the application
 * started, the workers start once the queues open.
 */
final class SluiceWorkers implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceWorkers.class);
    /** Below the web server's phases (graceful shutdown and start/stop), so it starts before and stops after them. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private record Planned<T>(String queue, Class<T> payload, Processor<T> processor, WorkerOptions options) {
        Worker<T> start(SluiceRegistry registry) {
            Worker<T> worker = registry.queue(queue, payload).worker(processor, options);
            worker.start();
            return worker;
        }
    }

    private final SluiceRegistry registry;
    private final List<Planned<?>> planned;
    private final Duration deadline;
    /** Whether the context started this and has not stopped it since. Guarded by this. */
    private boolean started;
    /** Counts the starts, so that the queues opening after a stop and a start again start the workers once. */
    private long starts;

    private List<Worker<?>> running = List.of();

    private SluiceWorkers(SluiceRegistry registry, List<Planned<?>> planned, Duration deadline) {
        this.registry = registry;
        this.planned = List.copyOf(planned);
        this.deadline = deadline;
    }

    /**
     * Finds each declared worker's processor bean, checking the worker's properties, and each {@link SluiceWorker}
     * processor.
     */
    @SuppressWarnings("unchecked")
    static SluiceWorkers plan(
            SluiceRegistry registry, SluiceProperties properties, ConfigurableListableBeanFactory beans) {
        Duration deadline = properties.shutdown().deadline();
        if (deadline == null || deadline.isNegative()) {
            throw new SluicePropertyException(
                    "sluice.shutdown.deadline", deadline, "must not be negative", "0s or " + Declarations.DURATION);
        }
        List<Planned<?>> planned = new ArrayList<>();
        properties.queues().forEach((name, queue) -> {
            if (queue.worker() == null) {
                return;
            }
            String property = "sluice.queues." + name + ".worker.processor";
            String processorName = queue.worker().processor();
            String allowed = "the name of a dev.sluice.queue.Processor bean; this context has "
                    + Arrays.toString(beans.getBeanNamesForType(Processor.class));
            if (processorName == null) {
                throw new SluicePropertyException(property, null, "a worker needs a processor", allowed);
            }
            Processor<String> processor;
            try {
                processor = beans.getBean(processorName, Processor.class);
            } catch (BeansException e) {
                throw new SluicePropertyException(
                        property, processorName, "names no Processor bean (" + e.getMessage() + ")", allowed);
            }
            registry.checkDeclared(name, String.class);
            planned.add(new Planned<>(name, String.class, processor, Declarations.workerOptions(name, queue.worker())));
        });
        for (AnnotatedWorkers.Found found : AnnotatedWorkers.find(beans, properties)) {
            int concurrency = found.annotation().concurrency();
            WorkerOptions options;
            try {
                options = WorkerOptions.builder()
                        .concurrency(concurrency)
                        .autoStart(false)
                        .build();
            } catch (IllegalArgumentException e) {
                throw SluiceAnnotationException.of(
                        found.where(),
                        e.getMessage(),
                        "Set concurrency to 1 to " + WorkerOptions.MAX_CONCURRENCY + ".");
            }
            String queue = found.annotation().queue();
            registry.checkDeclared(queue, found.payload());
            planned.add(new Planned<>(
                    queue, (Class<Object>) found.payload(), beans.getBean(found.bean(), Processor.class), options));
        }
        return new SluiceWorkers(registry, planned, deadline);
    }

    /** Starts the workers, or, while the queues wait for Redis, once they are open. */
    @Override
    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        long start = ++starts;
        CompletableFuture<Void> opened = registry.opened();
        if (opened.isDone()) {
            startWorkers(start);
            return;
        }
        opened.thenRun(() -> startWorkers(start)).whenComplete((done, failure) -> {
            if (failure != null) {
                LOG.error("Sluice could not start the workers once the queues opened: {}", failure.getMessage());
            }
        });
    }

    private synchronized void startWorkers(long start) {
        if (!started || start != starts) {
            return;
        }
        List<Worker<?>> workers = new ArrayList<>();
        for (Planned<?> worker : planned) {
            workers.add(worker.start(registry));
        }
        running = List.copyOf(workers);
    }

    @Override
    public void stop() {
        CompletableFuture.allOf(closeAll()).join();
    }

    @Override
    public void stop(Runnable callback) {
        CompletableFuture.allOf(closeAll()).whenComplete((done, failure) -> callback.run());
    }

    private synchronized CompletableFuture<?>[] closeAll() {
        started = false;
        CompletableFuture<?>[] closing =
                running.stream().map(w -> w.closeAsync(deadline)).toArray(CompletableFuture[]::new);
        running = List.of();
        return closing;
    }

    @Override
    public synchronized boolean isRunning() {
        return started;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** The workers running now, for tests. */
    synchronized List<Worker<?>> running() {
        return running;
    }

    @Override
    public String toString() {
        return "SluiceWorkers[" + planned.size() + " planned, " + running.size() + " running, deadline " + deadline
                + "]";
    }
}
