package dev.sluice.spring;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Proxies each bean with a {@link RateLimited} method or class through {@link RateLimitedInterceptor}, ahead of
 * the advice it has already, and once every singleton is made checks that each of their annotations can be
 * applied, so that a wrong one stops the start rather than the first call.
 */
final class RateLimitedPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {
    private static final long serialVersionUID = 1L;

    private final transient Set<Class<?>> unchecked = Collections.synchronizedSet(new LinkedHashSet<>());
    private transient RateLimitedInterceptor interceptor;

    RateLimitedPostProcessor(boolean proxyTargetClass) {
        setProxyTargetClass(proxyTargetClass);
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        interceptor = new RateLimitedInterceptor(beanFactory);
        ComposablePointcut limited = new ComposablePointcut(new AnnotationMatchingPointcut(RateLimited.class, true))
                .union(new AnnotationMatchingPointcut(null, RateLimited.class, true));
        this.advisor = new DefaultPointcutAdvisor(limited, interceptor);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Object result = super.postProcessAfterInitialization(bean, beanName);
        Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
        if (isEligible(targetClass)) {
            unchecked.add(targetClass);
        }
        return result;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<SluiceAnnotationException.Problem> problems = new ArrayList<>();
        synchronized (unchecked) {
            for (Class<?> targetClass : unchecked) {
                problems.addAll(interceptor.check(targetClass));
            }
            unchecked.clear();
        }
        if (!problems.isEmpty()) {
            throw new SluiceAnnotationException(problems);
        }
    }
}
