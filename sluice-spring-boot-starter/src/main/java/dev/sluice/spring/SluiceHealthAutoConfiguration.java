package dev.sluice.spring;

import dev.sluice.Sluice;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The health indicator {@code sluice}: UP when the engine answers, DOWN with the cause when it does not (also while
 * a Redis engine made while Redis was down has not reached it yet), asked in a way that writes nothing; its details
 * name the engine and each open queue's backlog (waiting, active and delayed jobs). Off with {@code
 * management.health.sluice.enabled=false}; an application's own bean named {@code sluiceHealthIndicator}
 * replaces it.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public final class SluiceHealthAutoConfiguration {
    SluiceHealthAutoConfiguration() {}

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("sluice")
    static class Indicator {
        @Bean
        @ConditionalOnMissingBean(name = "sluiceHealthIndicator")
        HealthIndicator sluiceHealthIndicator(Sluice sluice, SluiceRegistry registry) {
            return new SluiceHealthIndicator(sluice, registry);
        }
    }
}
