/**
 * Micrometer meters for Sluice: {@link dev.sluice.micrometer.SluiceMetrics#bind} binds every limiter and queue
 * of an engine, those there and those opened later, to a {@code MeterRegistry}. The meters' names and tags are
 * in {@link dev.sluice.micrometer.MeterNames}; {@link dev.sluice.micrometer.MetricsOptions} chooses percentiles,
 * the groups metered and common tags.
 */
package dev.sluice.micrometer;
