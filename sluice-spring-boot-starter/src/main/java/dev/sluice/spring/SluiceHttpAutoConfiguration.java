package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.http.IngressLimiter;
import dev.sluice.http.servlet.SluiceRateLimitFilter;
import jakarta.servlet.DispatcherType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * Limits at the door of a servlet web application: an {@link IngressLimiter} with the rules of {@code
 * sluice.http.rules} (whose limits name limiters declared under {@code sluice.limiters}), applied to every
 * request by {@link SluiceRateLimitFilter} at order {@code sluice.http.filter-order}. Off with {@code
 * sluice.http.enabled=false}. An application's own {@code IngressLimiter} bean replaces the one from properties,
 * and its own bean named {@code sluiceRateLimitFilter} replaces the filter's registration.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(
        name = {"dev.sluice.http.IngressLimiter", "jakarta.servlet.Filter"},
        value = FilterRegistrationBean.class)
@ConditionalOnBooleanProperty(name = "sluice.http.enabled", matchIfMissing = true)
public final class SluiceHttpAutoConfiguration {
    SluiceHttpAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    IngressLimiter sluiceIngressLimiter(Sluice sluice, SluiceRegistry registry, SluiceProperties properties) {
        return IngressRules.build(sluice, registry, properties.http());
    }

    @Bean
    @ConditionalOnMissingBean(name = "sluiceRateLimitFilter")
    FilterRegistrationBean<SluiceRateLimitFilter> sluiceRateLimitFilter(
            IngressLimiter ingress, SluiceProperties properties) {
        FilterRegistrationBean<SluiceRateLimitFilter> registration =
                new FilterRegistrationBean<>(new SluiceRateLimitFilter(ingress));
        registration.setName("sluiceRateLimitFilter");
        registration.setOrder(properties.http().filterOrder());
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
