package dev.sluice.spring;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Sluice's annotations on the application's beans: {@link RateLimited} methods are limited, and in a servlet web
 * application a {@link RateLimitedException} is answered with {@code 429 Too Many Requests} and {@code
 * Retry-After}. Beans are proxied by class unless {@code spring.aop.proxy-target-class=false}, as Spring Boot
 * proxies them. Off with {@code sluice.annotations.enabled=false}.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "sluice.annotations.enabled", matchIfMissing = true)
public final class SluiceAnnotationsAutoConfiguration {
    SluiceAnnotationsAutoConfiguration() {}

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedPostProcessor sluiceRateLimitedPostProcessor(Environment environment) {
        return new RateLimitedPostProcessor(
                environment.getProperty("spring.aop.proxy-target-class", Boolean.class, Boolean.TRUE));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
    static class Mvc {
        @Bean
        @ConditionalOnMissingBean
        RateLimitedExceptionResolver sluiceRateLimitedExceptionResolver() {
            return new RateLimitedExceptionResolver();
        }
    }
}
