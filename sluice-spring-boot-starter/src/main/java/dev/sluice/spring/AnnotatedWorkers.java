package dev.sluice.spring;

import dev.sluice.jackson.JsonCodec;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Processor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * The processor beans marked {@link SluiceWorker}, read from the bean definitions without making the beans, and
 * the codec of each one's queue.
 */
final class AnnotatedWorkers {
    private static final String JSON_CODEC = "dev.sluice.jackson.JsonCodec";

    private AnnotatedWorkers() {}

    /**
     * A processor bean marked {@link SluiceWorker}.
     *
     * @param bean the bean's name
     * @param where the annotation and the bean, for messages
     * @param payload the processor's payload type
     * @param annotation the annotation
     */
    record Found(String bean, String where, Class<?> payload, SluiceWorker annotation) {}

    /**
     * The payloads of a queue a {@link SluiceWorker} runs: their type, and the codec that stores them.
     *
     * @param type the payload type
     * @param codec the queue's codec
     * @param where the annotation that asks for the queue, for messages
     */
    record Payload(Class<?> type, Codec<?> codec, String where) {}

    /**
     * Every marked processor bean, in the order the context defines them; none when {@code
     * sluice.annotations.enabled=false}.
     *
     * @throws SluiceAnnotationException naming each bean that is not a processor of a known payload type, and
     *     each queue asked for with two payload types
     */
    static List<Found> find(ConfigurableListableBeanFactory beans, SluiceProperties properties) {
        if (!properties.annotations().enabled()) {
            return List.of();
        }
        List<Found> found = new ArrayList<>();
        List<SluiceAnnotationException.Problem> problems = new ArrayList<>();
        Map<String, Found> byQueue = new LinkedHashMap<>();
        for (String bean : beans.getBeanNamesForAnnotation(SluiceWorker.class)) {
            SluiceWorker annotation = beans.findAnnotationOnBean(bean, SluiceWorker.class);
            String where = "@SluiceWorker(queue = \"" + annotation.queue() + "\") on bean '" + bean + "'";
            Class<?> payload = payloadType(beans, bean);
            if (!beans.isTypeMatch(bean, Processor.class)) {
                problems.add(new SluiceAnnotationException.Problem(
                        where,
                        "the bean is not a dev.sluice.queue.Processor",
                        "Make bean '" + bean + "' a Processor<T> of the queue's payload type T, or remove the"
                                + " annotation."));
            } else if (payload == null) {
                problems.add(new SluiceAnnotationException.Problem(
                        where,
                        "its payload type cannot be read from the bean's type",
                        "Declare bean '" + bean + "' as a Processor of its payload type, such as"
                                + " Processor<Order>, not as a raw Processor."));
            } else {
                Found one = new Found(bean, where, payload, annotation);
                Found other = byQueue.putIfAbsent(annotation.queue(), one);
                if (other != null && other.payload() != payload) {
                    problems.add(new SluiceAnnotationException.Problem(
                            where,
                            "its payload type " + payload.getName() + " is not that of " + other.where() + ", "
                                    + other.payload().getName(),
                            "Give the processors of queue '" + annotation.queue() + "' one payload type."));
                }
                found.add(one);
            }
        }
        if (!problems.isEmpty()) {
            throw new SluiceAnnotationException(problems);
        }
        return found;
    }

    /**
     * The payloads of each queue a {@link SluiceWorker} runs, by queue name.
     *
     * @throws SluiceAnnotationException as {@link #find}, and naming each queue whose codec cannot be found
     */
    static Map<String, Payload> payloads(ConfigurableListableBeanFactory beans, SluiceProperties properties) {
        Map<String, Payload> payloads = new LinkedHashMap<>();
        List<SluiceAnnotationException.Problem> problems = new ArrayList<>();
        for (Found found : find(beans, properties)) {
            if (payloads.containsKey(found.annotation().queue())) {
                continue;
            }
            try {
                payloads.put(
                        found.annotation().queue(), new Payload(found.payload(), codec(beans, found), found.where()));
            } catch (SluiceAnnotationException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new SluiceAnnotationException(problems);
        }
        return payloads;
    }

    private static Codec<?> codec(ConfigurableListableBeanFactory beans, Found found) {
        Class<?> payload = found.payload();
        String named = found.annotation().codec();
        String simple = ClassUtils.getShortName(payload);
        if (!named.isEmpty()) {
            if (!beans.containsBean(named)
                    || !beans.isTypeMatch(named, ResolvableType.forClassWithGenerics(Codec.class, payload))) {
                throw SluiceAnnotationException.of(
                        found.where(),
                        "no bean '" + named + "' is a Codec<" + simple + ">",
                        "Define a Codec<" + simple + "> bean named '" + named + "', or leave codec empty for the"
                                + " codec the payload type chooses.");
            }
            return beans.getBean(named, Codec.class);
        }
        if (payload == String.class) {
            return Codec.utf8();
        }
        if (payload == byte[].class) {
            return Codec.bytes();
        }
        if (ClassUtils.isPresent(JSON_CODEC, beans.getBeanClassLoader())) {
            return Json.codec(payload);
        }
        throw SluiceAnnotationException.of(
                found.where(),
                "no codec stores " + payload.getName() + " payloads: JSON needs dev.sluice:sluice-jackson, which is"
                        + " not on the class path",
                "Add dev.sluice:sluice-jackson to the application's dependencies, or define a Codec<" + simple
                        + "> bean and name it in @SluiceWorker(codec = \"...\").");
    }

    /** The processor's payload type, from its bean definition, else from its class; null if neither says. */
    private static Class<?> payloadType(ConfigurableListableBeanFactory beans, String bean) {
        ResolvableType declared = beans.containsBeanDefinition(bean)
                ? beans.getMergedBeanDefinition(bean).getResolvableType()
                : ResolvableType.NONE;
        Class<?> payload = declared.as(Processor.class).getGeneric(0).resolve();
        if (payload == null) {
            Class<?> type = beans.getType(bean);
            payload = type == null
                    ? null
                    : ResolvableType.forClass(type)
                            .as(Processor.class)
                            .getGeneric(0)
                            .resolve();
        }
        return payload;
    }

    /** Loaded only when sluice-jackson is on the class path. */
    private static final class Json {
        static Codec<?> codec(Class<?> payload) {
            return JsonCodec.of(payload);
        }
    }
}
