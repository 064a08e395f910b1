package dev.sluice.spring;

import dev.sluice.Sluice;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Actuator endpoint {@code sluice} ({@code /actuator/sluice} over HTTP): each limiter with its policy and its
 * answer while the engine is unavailable, and each queue with its limits, whether it is paused and its jobs in each
 * state. Read-only. Available when exposed, as every endpoint is ({@code
 * management.endpoints.web.exposure.include=sluice}); an application's own bean named {@code sluiceEndpoint}
 * replaces it.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnClass(
        name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
public final class SluiceEndpointAutoConfiguration {
    SluiceEndpointAutoConfiguration() {}

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(SluiceEndpoint.class)
    static class Exposed {
        @Bean
        @ConditionalOnMissingBean(name = "sluiceEndpoint")
        SluiceEndpoint sluiceEndpoint(Sluice sluice, SluiceRegistry registry) {
            return new SluiceEndpoint(sluice, registry);
        }
    }
}
