package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue declared under {@code sluice.queues} or by a {@link SluiceWorker}, its properties checked, ready to be
 * opened with its repeatable jobs: at once, or once a Redis engine made while Redis was down has reached it.
 *
 * @param name the queue's name
 * @param payload the type of its payloads
 * @param opener opens it on the engine and registers its repeatable jobs
 */
record DeclaredQueue(String name, Class<?> payload, Supplier<JobQueue<?>> opener) {
    private static final Logger LOG = LoggerFactory.getLogger(DeclaredQueue.class);

    /**
     * What the id of a repeatable job declared in properties starts with, before the id the properties give: it
     * tells the starter's own repeatable jobs from those the application registers in code, so that one removed
     * from the properties can be removed from the queue.
     */
    static final String PROPERTIES_ID = "properties:";

    /**
     * Every queue of {@code properties} and of the {@code SluiceWorker} processors, sorted by name.
     *
     * @throws SluicePropertyException if a queue's property, or one of its repeatable jobs, is malformed
     */
    static List<DeclaredQueue> all(
            Sluice sluice, SluiceProperties properties, Map<String, AnnotatedWorkers.Payload> annotated) {
        List<DeclaredQueue> declared = new ArrayList<>();
        new TreeMap<>(properties.queues()).forEach((name, queue) -> {
            AnnotatedWorkers.Payload annotation = annotated.get(name);
            Codec<?> codec = annotation == null ? Codec.utf8() : annotation.codec();
            Class<?> payload = annotation == null ? String.class : annotation.type();
            QueueOptions options = Declarations.queueOptions(name, queue);
            List<Consumer<JobQueue<?>>> repeats = repeats(name, payload, queue.repeat());
            Set<String> ids = new HashSet<>();
            queue.repeat().forEach(repeat -> ids.add(PROPERTIES_ID + repeat.id()));
            declared.add(new DeclaredQueue(name, payload, () -> {
                JobQueue<?> opened =
                        Declarations.core("sluice.queues." + name, name, () -> sluice.queue(name, codec, options));
                repeats.forEach(repeat -> repeat.accept(opened));
                removeUndeclared(opened, ids);
                return opened;
            }));
        });
        new TreeMap<>(annotated).forEach((name, annotation) -> {
            if (properties.queues().containsKey(name)) {
                return;
            }
            declared.add(new DeclaredQueue(name, annotation.type(), () -> {
                JobQueue<?> opened;
                try {
                    opened = sluice.queue(name, annotation.codec());
                } catch (IllegalArgumentException e) {
                    throw SluiceAnnotationException.of(
                            annotation.where(), e.getMessage(), "Name a queue the engine can open.");
                }
                removeUndeclared(opened, Set.of());
                return opened;
            }));
        });
        return declared;
    }

    /** Opens the queue and registers its repeatable jobs. */
    JobQueue<?> open() {
        return opener.get();
    }

    /**
     * Removes the repeatable jobs of {@code queue} that properties declared once (their id starts with {@link
     * #PROPERTIES_ID}) and declare no longer; those the application registered in code stay.
     */
    private static void removeUndeclared(JobQueue<?> queue, Set<String> declared) {
        for (RepeatableJob<?> repeatable : queue.repeatables()) {
            String id = repeatable.id();
            if (id.startsWith(PROPERTIES_ID) && !declared.contains(id) && queue.removeRepeatable(id)) {
                LOG.info(
                        "removed the repeatable job '{}' of queue '{}': sluice.queues.{}.repeat no longer declares"
                                + " it",
                        id.substring(PROPERTIES_ID.length()),
                        queue.name(),
                        queue.name());
            }
        }
    }

    /** The registrations of the repeatable jobs of {@code sluice.queues.NAME.repeat}, each checked. */
    @SuppressWarnings("unchecked")
    private static List<Consumer<JobQueue<?>>> repeats(
            String name, Class<?> payload, List<SluiceProperties.Repeat> repeats) {
        List<Consumer<JobQueue<?>>> registrations = new ArrayList<>();
        for (int i = 0; i < repeats.size(); i++) {
            String prefix = "sluice.queues." + name + ".repeat[" + i + "].";
            SluiceProperties.Repeat repeat = repeats.get(i);
            if (repeat.id() == null) {
                throw new SluicePropertyException(
                        prefix + "id", null, "a repeatable job needs an id", "an id unique in the queue");
            }
            if (repeat.job() == null) {
                throw new SluicePropertyException(
                        prefix + "job", null, "a repeatable job needs the name of the jobs it adds", "a job name");
            }
            Schedule schedule = Declarations.schedule(prefix, repeat);
            if (payload != String.class) {
                throw SluicePropertyException.withAction(
                        prefix + "id",
                        repeat.id(),
                        "queue '" + name + "' carries " + payload.getTypeName() + " payloads, and properties give a"
                                + " repeatable job a string",
                        "Register this repeatable job in code, with the queue's repeat method, and remove it from"
                                + " the properties.");
            }
            NewJob<String> template = new NewJob<>(repeat.job(), repeat.payload() == null ? "" : repeat.payload());
            registrations.add(queue -> Declarations.core(
                    prefix + "id",
                    repeat.id(),
                    () -> ((JobQueue<String>) queue).repeat(PROPERTIES_ID + repeat.id(), schedule, template)));
        }
        return registrations;
    }
}
