package dev.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code dev.sluice.queue.Processor<T>} bean the worker of a queue: the starter opens the queue, runs a
 * worker with this processor once the application context has started, and closes it when the context stops,
 * giving running jobs {@code sluice.shutdown.deadline}. Put it on the processor's class, or on the {@code @Bean}
 * method that returns it.
 *
 * <p>The payload type {@code T} is read from the bean's type. The queue's codec is the {@code Codec<T>} bean named
 * by {@link #codec()}; unless one is named, UTF-8 for {@code String}, the bytes as they are for {@code byte[]}, and
 * for any other type JSON through {@code dev.sluice.jackson.JsonCodec}, which needs {@code
 * dev.sluice:sluice-jackson} on the class path. The queue takes its options from {@code sluice.queues.NAME} when it
 * is declared there, the defaults otherwise; {@link SluiceRegistry#queue(String, Class)} hands it out. A processor
 * whose payload type or codec cannot be found stops the application's start with a message naming the bean.
 * Applied unless {@code sluice.annotations.enabled=false}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SluiceWorker {
    /**
     * The queue's name.
     *
     * @return 1 to 128 letters, digits or {@code . _ - :}
     */
    String queue();

    /**
     * How many jobs the worker runs at once.
     *
     * @return 1 (the default) to {@code WorkerOptions.MAX_CONCURRENCY}
     */
    int concurrency() default 1;

    /**
     * The name of the {@code dev.sluice.queue.Codec<T>} bean that encodes the payloads; empty (the default) for the
     * codec chosen by the payload type.
     *
     * @return a bean name, or empty
     */
    String codec() default "";
}
