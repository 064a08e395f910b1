package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a Prometheus server scrapes: every meter under its Prometheus name, with its tags as labels. */
class PrometheusScrapeTest {
    private final ManualClock clock = new ManualClock();
    private final Sluice sluice = Sluice.inMemory(clock);
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @AfterEach
    void close() {
        sluice.close();
        registry.close();
    }

    private String scrapeAfterSomeWork(MetricsOptions options) {
        SluiceMetrics.bind(sluice, registry, options);
        RateLimiter limiter = sluice.limiter("api", TokenBucket.of(1, Duration.ofSeconds(1)));
        limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        JobQueue<String> queue = sluice.queue("mail", Codec.utf8());
        queue.add("job", "x", JobOptions.builder().group("acme").build());
        queue.add("job", "y");
        queue.add("job", "z", JobOptions.builder().delay(Duration.ofHours(1)).build());
        queue.worker(
                        job -> {
                            clock.advance(Duration.ofMillis(500));
                            return Result.done();
                        },
                        WorkerOptions.manual())
                .runDue();
        return registry.scrape();
    }

    @Test
    void everyMeterIsScrapedUnderItsPrometheusNameWithItsLabels() {
        String scrape = scrapeAfterSomeWork(
                MetricsOptions.builder().groups("acme").tag("app", "billing").build());

        assertThat(scrape)
                .contains("# TYPE sluice_limiter_decisions_total counter")
                .contains("sluice_limiter_decisions_total{app=\"billing\",basis=\"limit\",limiter=\"api\","
                        + "outcome=\"allowed\"} 1.0")
                .contains("sluice_limiter_decisions_total{app=\"billing\",basis=\"limit\",limiter=\"api\","
                        + "outcome=\"denied\"} 1.0")
                .contains("sluice_limiter_outages_total{app=\"billing\",limiter=\"api\"} 0.0")
                .contains("sluice_limiter_unavailable{app=\"billing\",limiter=\"api\"} 0.0")
                .contains("sluice_limiter_keys_evicted_total{app=\"billing\",limiter=\"api\"} 0.0")
                .contains("sluice_limiter_keys_overflowed_total{app=\"billing\",limiter=\"api\"} 0.0")
                .contains("# TYPE sluice_queue_jobs gauge")
                .contains("sluice_queue_jobs{app=\"billing\",queue=\"mail\",state=\"completed\"} 2.0")
                .contains("sluice_queue_jobs{app=\"billing\",queue=\"mail\",state=\"delayed\"} 1.0")
                .contains("sluice_queue_jobs{app=\"billing\",queue=\"mail\",state=\"waiting\"} 0.0")
                .contains("sluice_queue_jobs_added_total{app=\"billing\",queue=\"mail\"} 3.0")
                .contains("sluice_queue_jobs_completed_total{app=\"billing\",queue=\"mail\"} 2.0")
                .contains("sluice_queue_jobs_failed_total{app=\"billing\",queue=\"mail\"} 0.0")
                .contains("sluice_queue_jobs_retried_total{app=\"billing\",queue=\"mail\"} 0.0")
                .contains("sluice_queue_jobs_rate_limited_total{app=\"billing\",queue=\"mail\",scope=\"group\"} 0.0")
                .contains("sluice_queue_jobs_rescheduled_total{app=\"billing\",queue=\"mail\"} 0.0")
                .doesNotContain("sluice_queue_events_missed")
                .contains("# TYPE sluice_queue_wait_seconds summary")
                .contains("sluice_queue_wait_seconds_count{app=\"billing\",queue=\"mail\"} 2")
                .contains("sluice_queue_wait_seconds{app=\"billing\",queue=\"mail\",quantile=\"0.99\"}")
                .contains(
                        "sluice_queue_processing_seconds_count{app=\"billing\",outcome=\"completed\",queue=\"mail\"} 2")
                .contains(
                        "sluice_queue_processing_seconds_sum{app=\"billing\",outcome=\"completed\",queue=\"mail\"} 1.0")
                .contains(
                        "sluice_queue_group_jobs{app=\"billing\",group=\"acme\",queue=\"mail\",state=\"completed\"} 1.0")
                .contains("sluice_queue_group_jobs_added_total{app=\"billing\",group=\"acme\",queue=\"mail\"} 1.0")
                .contains("sluice_queue_group_processing_seconds_count{app=\"billing\",group=\"acme\","
                        + "outcome=\"completed\",queue=\"mail\"} 1");
    }

    @Test
    void everyMeterIsScrapedWithHelpTextAfterItsName() {
        String scrape =
                scrapeAfterSomeWork(MetricsOptions.builder().groups("acme").build());
        List<String> lines = scrape.lines().toList();

        List<String> scraped = lines.stream()
                .filter(line -> line.startsWith("# TYPE sluice_"))
                .map(line -> line.split(" ")[2])
                .toList();

        assertThat(scraped).hasSizeGreaterThan(20);
        assertThat(scraped)
                .allSatisfy(name -> assertThat(lines)
                        .anySatisfy(line -> assertThat(line)
                                .startsWith("# HELP " + name + " ")
                                .matches("# HELP \\S+ \\S.*")));
        assertThat(registry.getMeters())
                .allSatisfy(meter -> assertThat(meter.getId().getDescription()).isNotBlank());
    }

    @Test
    void everyMeterNameHasADescription() throws IllegalAccessException {
        List<String> names = new ArrayList<>();
        for (Field field : MeterNames.class.getFields()) {
            String value = (String) field.get(null);
            if (value.startsWith("sluice.")) {
                names.add(value);
            }
        }

        assertThat(names).hasSize(31);
        assertThat(names)
                .allSatisfy(name -> assertThat(MeterNames.description(name)).isNotBlank());
    }

    @Test
    void withTheHistogramOnTimersPublishBucketsForPercentilesAcrossProcesses() {
        String scrape = scrapeAfterSomeWork(
                MetricsOptions.builder().percentiles().percentileHistogram(true).build());

        assertThat(scrape)
                .contains("# TYPE sluice_queue_processing_seconds histogram")
                .contains("sluice_queue_processing_seconds_bucket{outcome=\"completed\",queue=\"mail\",le=\"+Inf\"} 2")
                .doesNotContain("quantile=");
    }
}
