package dev.sluice.spring;

import dev.sluice.limit.Decision;
import dev.sluice.limit.Limiter;
import dev.sluice.limit.NamedLimiter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Applies {@link RateLimited}: takes the permits of each call before the method runs, and throws {@link
 * RateLimitedException} instead of running it when they are denied. Each method's limiter and key expression are
 * resolved once, on its first call or by {@link #check}. Thread-safe.
 */
final class RateLimitedInterceptor implements MethodInterceptor {
    private static final ResolvableType LIMITER = ResolvableType.forClassWithGenerics(Limiter.class, String.class);
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private final BeanFactory beans;
    private final Map<MethodClassKey, Optional<Limit>> limits = new ConcurrentHashMap<>();

    RateLimitedInterceptor(BeanFactory beans) {
        this.beans = beans;
    }

    /** A method's limit, resolved. */
    private record Limit(
            String where, String name, Limiter<String> limiter, Method method, Expression key, long permits) {
        String keyOf(Object[] arguments) {
            if (key == null) {
                return RateLimited.SHARED_KEY;
            }
            Object value;
            try {
                value = key.getValue(new MethodBasedEvaluationContext(null, method, arguments, NAMES));
            } catch (EvaluationException e) {
                throw new IllegalArgumentException(
                        where + ": key '" + key.getExpressionString() + "' cannot be evaluated: " + e.getMessage(), e);
            }
            if (value == null) {
                throw new IllegalArgumentException(
                        where + ": key '" + key.getExpressionString() + "' is null for this call; a key needs a value");
            }
            return value.toString();
        }
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass =
                target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        Limit limit = limitOf(AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass), targetClass);
        if (limit == null) {
            return invocation.proceed();
        }
        String key = limit.keyOf(invocation.getArguments());
        Decision decision = limit.limiter().tryAcquire(key, limit.permits());
        if (decision.denied()) {
            throw new RateLimitedException(limit.name(), key, decision);
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable e) {
            decision.release();
            throw e;
        }
        if (result instanceof CompletionStage<?> pending) {
            pending.whenComplete((value, failure) -> decision.release());
        } else {
            decision.release();
        }
        return result;
    }

    /**
     * Resolves the limit of each limited method of {@code targetClass}.
     *
     * @return what cannot be applied, in the order of the methods; empty if everything can
     */
    List<SluiceAnnotationException.Problem> check(Class<?> targetClass) {
        List<SluiceAnnotationException.Problem> problems = new ArrayList<>();
        for (Method method :
                ReflectionUtils.getUniqueDeclaredMethods(targetClass, ReflectionUtils.USER_DECLARED_METHODS)) {
            try {
                limitOf(method, targetClass);
            } catch (SluiceAnnotationException e) {
                problems.addAll(e.problems());
            }
        }
        return problems;
    }

    /** The limit of {@code method} called on {@code targetClass}; null if it has none. */
    private Limit limitOf(Method method, Class<?> targetClass) {
        return limits.computeIfAbsent(
                        new MethodClassKey(method, targetClass), k -> Optional.ofNullable(resolve(method, targetClass)))
                .orElse(null);
    }

    private Limit resolve(Method method, Class<?> targetClass) {
        RateLimited annotation = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
        if (annotation == null && Modifier.isPublic(method.getModifiers()) && !ReflectionUtils.isObjectMethod(method)) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(targetClass, RateLimited.class);
        }
        if (annotation == null) {
            return null;
        }
        String where = "@RateLimited(\"" + annotation.value() + "\") on "
                + ClassUtils.getShortName(ClassUtils.getUserClass(targetClass)) + "." + method.getName() + "("
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", "))
                + ")";
        Limiter<String> limiter = limiter(annotation.value(), where);
        long permits = annotation.permits();
        long most = limiter instanceof NamedLimiter one ? one.policy().limit() : Long.MAX_VALUE;
        if (permits < 1 || permits > most) {
            throw SluiceAnnotationException.of(
                    where,
                    "permits = " + permits + " is out of range",
                    "Set permits to 1 to " + (most == Long.MAX_VALUE ? "the limiter's limit" : most) + ".");
        }
        String text = annotation.key().strip();
        Expression key = null;
        if (!text.isEmpty()) {
            try {
                key = PARSER.parseExpression(text);
            } catch (ParseException e) {
                throw SluiceAnnotationException.of(
                        where,
                        "key '" + text + "' is not a SpEL expression (" + e.getMessage() + ")",
                        "Write the key as #parameterName, #p0, or a constant in single quotes such as 'reports'.");
            }
        }
        return new Limit(where, annotation.value(), limiter, method, key, permits);
    }

    @SuppressWarnings("unchecked")
    private Limiter<String> limiter(String name, String where) {
        SluiceRegistry registry = beans.getBeanProvider(SluiceRegistry.class).getIfAvailable();
        if (registry != null && registry.limiters().containsKey(name)) {
            return registry.limiter(name);
        }
        if (beans.containsBean(name) && beans.isTypeMatch(name, LIMITER)) {
            return beans.getBean(name, Limiter.class);
        }
        String declared = registry == null || registry.limiters().isEmpty()
                ? "none is declared"
                : "declared: " + String.join(", ", registry.limiters().keySet());
        throw SluiceAnnotationException.of(
                where,
                "no limiter '" + name + "' is declared under sluice.limiters, and no bean of that name is a"
                        + " Limiter<String>",
                "Declare 'sluice.limiters." + name + "' (" + declared + "), or define a limiter bean named '" + name
                        + "'.");
    }
}
