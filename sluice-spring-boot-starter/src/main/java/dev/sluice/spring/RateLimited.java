package dev.sluice.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits the calls of a bean's method: each call takes {@link #permits()} from the limiter named {@link #value()}
 * for the key {@link #key()} evaluates to, before the method runs. A denied call does not run the method: it throws
 * {@link RateLimitedException}, which a servlet web application answers with {@code 429 Too Many Requests} and
 * {@code Retry-After}. What a limiter answers while its engine cannot be reached is its own {@code
 * when-unavailable}: fail-open lets calls run, fail-closed denies them.
 *
 * <p>On a class, it limits each public method the class declares or inherits, except those of {@code Object}; an
 * annotation on a method replaces the class's for that method. It applies to calls through the bean's proxy, as
 * every Spring AOP annotation does: a call from the bean to itself is not limited. For a {@code concurrency}
 * limiter the lease is held while the method runs and released when it returns or throws; a method that returns a
 * {@code CompletionStage} (a {@code CompletableFuture}) holds it until that completes, normally or not.
 *
 * <p>The limiter is one declared under {@code sluice.limiters}, or else a bean of that name that is a {@code
 * dev.sluice.limit.Limiter<String>} (a {@code RateLimiter}, a {@code ConcurrencyLimiter}, or a chain keyed by a
 * string). A name that is neither,
 * a key that is not an expression, or permits out of range stop the application's start with a message naming the
 * method. Applied by the starter unless {@code sluice.annotations.enabled=false}.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {
    /** The key of every call whose annotation leaves {@link #key()} empty. */
    String SHARED_KEY = "all";

    /**
     * The limiter's name.
     *
     * @return a name under {@code sluice.limiters}, or a limiter bean's name
     */
    String value();

    /**
     * A SpEL expression over the method's parameters giving the key of a call: {@code #tenantId} (the parameter
     * by its name), {@code #p0} (by its position), {@code #user.id()}, or a constant in single quotes ({@code
     * 'reports'}); its value is used as a string and must not be null. Empty (the default) for one key shared by
     * every call, {@value #SHARED_KEY}.
     *
     * @return the expression
     */
    String key() default "";

    /**
     * The permits each call takes.
     *
     * @return 1 (the default) to the limiter's limit
     */
    long permits() default 1;
}
