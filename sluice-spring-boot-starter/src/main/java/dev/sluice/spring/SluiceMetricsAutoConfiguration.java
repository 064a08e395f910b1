package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.micrometer.MetricsOptions;
import dev.sluice.micrometer.SluiceMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters of every limiter and queue of the engine, when the application has a {@code MeterRegistry}:
 * a {@link SluiceMetrics} bean, a {@code MeterBinder} that Spring Boot binds to each registry, with the options
 * of {@code sluice.metrics}. Off with {@code sluice.metrics.enabled=false}; an application's own {@code
 * SluiceMetrics} bean replaces it.
 */
@AutoConfiguration(
        after = SluiceAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(name = {"dev.sluice.micrometer.SluiceMetrics", "io.micrometer.core.instrument.MeterRegistry"})
@ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
@ConditionalOnBooleanProperty(name = "sluice.metrics.enabled", matchIfMissing = true)
public final class SluiceMetricsAutoConfiguration {
    SluiceMetricsAutoConfiguration() {}

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    SluiceMetrics sluiceMetrics(Sluice sluice, SluiceProperties properties) {
        SluiceProperties.Metrics metrics = properties.metrics();
        MetricsOptions.Builder options = MetricsOptions.builder()
                .percentileHistogram(metrics.percentileHistogram())
                .groups(metrics.groups());
        Declarations.core(
                "sluice.metrics.busiest-groups",
                metrics.busiestGroups(),
                () -> options.busiestGroups(metrics.busiestGroups()));
        if (metrics.percentiles() != null) {
            double[] percentiles = metrics.percentiles().stream()
                    .mapToDouble(Double::doubleValue)
                    .toArray();
            Declarations.core(
                    "sluice.metrics.percentiles", metrics.percentiles(), () -> options.percentiles(percentiles));
        }
        metrics.tags()
                .forEach((key, value) ->
                        Declarations.core("sluice.metrics.tags." + key, value, () -> options.tag(key, value)));
        return SluiceMetrics.of(sluice, Declarations.core("sluice.metrics", metrics, options::build));
    }
}
