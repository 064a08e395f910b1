package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Schedule;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Job defaults and repeatable jobs of a queue declared in properties. */
class QueueDeclarationsTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
            .withPropertyValues("sluice.shutdown.deadline=0s");

    @Test
    void givesEveryJobOfTheQueueTheDefaultsOfItsProperties() {
        runner.withPropertyValues(
                        "sluice.queues.mail.job-defaults.attempts=5",
                        "sluice.queues.mail.job-defaults.backoff.type=exponential",
                        "sluice.queues.mail.job-defaults.backoff.delay=2s",
                        "sluice.queues.mail.job-defaults.backoff.max=1m",
                        "sluice.queues.mail.job-defaults.timeout=30s",
                        "sluice.queues.mail.job-defaults.keep-completed.count=10",
                        "sluice.queues.mail.job-defaults.keep-failed.age=7d")
                .run(context -> {
                    JobQueue<String> mail =
                            context.getBean(SluiceRegistry.class).queue("mail");

                    String defaulted = mail.add("welcome", "ada").job().id();
                    String own = mail.add(
                                    "welcome",
                                    "bob",
                                    JobOptions.builder().attempts(2).build())
                            .job()
                            .id();

                    JobOptions options = mail.job(defaulted).orElseThrow().options();
                    assertThat(options.attempts()).isEqualTo(5);
                    assertThat(options.backoff())
                            .isEqualTo(Backoff.exponential(Duration.ofSeconds(2), Duration.ofMinutes(1)));
                    assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(options.keepCompleted()).isEqualTo(Retention.keepLast(10));
                    assertThat(options.keepFailed()).isEqualTo(Retention.keepFor(Duration.ofDays(7)));
                    assertThat(mail.job(own).orElseThrow().options().attempts()).isEqualTo(2);
                });
    }

    @Test
    void registersTheRepeatableJobsOfItsProperties() {
        runner.withPropertyValues(
                        "sluice.queues.reports.repeat[0].id=nightly",
                        "sluice.queues.reports.repeat[0].cron=0 3 * * *",
                        "sluice.queues.reports.repeat[0].zone=Europe/Paris",
                        "sluice.queues.reports.repeat[0].job=digest",
                        "sluice.queues.reports.repeat[0].payload=all tenants",
                        "sluice.queues.reports.repeat[1].id=sweep",
                        "sluice.queues.reports.repeat[1].every=10m",
                        "sluice.queues.reports.repeat[1].job=sweep")
                .run(context -> {
                    List<RepeatableJob<String>> repeatables = context.getBean(SluiceRegistry.class)
                            .queue("reports")
                            .repeatables();

                    assertThat(repeatables)
                            .extracting(RepeatableJob::id)
                            .containsExactlyInAnyOrder("properties:nightly", "properties:sweep");
                    RepeatableJob<String> nightly = repeatables.stream()
                            .filter(r -> r.id().equals("properties:nightly"))
                            .findFirst()
                            .orElseThrow();
                    assertThat(nightly.schedule()).isEqualTo(Schedule.cron("0 3 * * *", ZoneId.of("Europe/Paris")));
                    assertThat(nightly.template().name()).isEqualTo("digest");
                    assertThat(nightly.template().payload()).isEqualTo("all tenants");
                });
    }

    @Test
    void removesTheRepeatableJobsThePropertiesDeclareNoLongerAndKeepsThoseOfTheApplication() {
        NewJob<String> template = new NewJob<>("digest", "");
        runner.withBean(Sluice.class, () -> {
                    Sluice sluice = Sluice.inMemory();
                    JobQueue<String> earlier = sluice.queue("reports", Codec.utf8());
                    earlier.repeat("properties:weekly", Schedule.fixedRate(Duration.ofDays(7)), template);
                    earlier.repeat("properties:nightly", Schedule.fixedRate(Duration.ofDays(1)), template);
                    earlier.repeat("weekly", Schedule.fixedRate(Duration.ofDays(7)), template);
                    return sluice;
                })
                .withPropertyValues(
                        "sluice.queues.reports.repeat[0].id=nightly",
                        "sluice.queues.reports.repeat[0].cron=0 3 * * *",
                        "sluice.queues.reports.repeat[0].job=digest")
                .run(context -> {
                    List<RepeatableJob<String>> repeatables = context.getBean(SluiceRegistry.class)
                            .queue("reports")
                            .repeatables();

                    assertThat(repeatables)
                            .extracting(RepeatableJob::id)
                            .as("the application's own 'weekly' stays; the properties' 'weekly' is gone")
                            .containsExactlyInAnyOrder("properties:nightly", "weekly");
                    assertThat(repeatables.stream()
                                    .filter(r -> r.id().equals("properties:nightly"))
                                    .findFirst()
                                    .orElseThrow()
                                    .schedule())
                            .as("replaced by what the properties now say")
                            .isEqualTo(Schedule.cron("0 3 * * *", ZoneOffset.UTC));
                });
    }

    @Test
    void runsACronJobWithTheQueuesDefaultsWhenTheApplicationsClockReachesItsTime() {
        runner.withUserConfiguration(Digest.class)
                .withPropertyValues(
                        "sluice.queues.reports.job-defaults.attempts=3",
                        "sluice.queues.reports.repeat[0].id=nightly",
                        "sluice.queues.reports.repeat[0].cron=0 3 * * *",
                        "sluice.queues.reports.repeat[0].job=digest",
                        "sluice.queues.reports.repeat[0].payload=all tenants",
                        "sluice.queues.reports.worker.processor=digester")
                .run(context -> {
                    ManualClock clock = context.getBean(ManualClock.class);
                    Digest digest = context.getBean(Digest.class);
                    JobQueue<String> reports =
                            context.getBean(SluiceRegistry.class).queue("reports");

                    clock.advance(Duration.ofHours(2).plusMinutes(59));
                    assertThat(reports.counts().delayed()).isEqualTo(1);

                    clock.advance(Duration.ofMinutes(1));

                    await().atMost(Duration.ofSeconds(10)).until(() -> !digest.ran.isEmpty());
                    Job<String> run = digest.ran.getFirst();
                    assertThat(run.payload()).isEqualTo("all tenants");
                    assertThat(run.options().attempts()).isEqualTo(3);
                    assertThat(run.startedAt()).isEqualTo(Instant.parse("2026-01-01T03:00:00Z"));
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> reports.job(run.id()).orElseThrow().state() == JobState.COMPLETED);
                });
    }

    @Test
    void namesARepeatableJobWithTwoSchedules() {
        FailureAnalysis analysis = SluiceFailureAnalyzerTest.analysisOf(
                runner,
                "sluice.queues.reports.repeat[0].id=nightly",
                "sluice.queues.reports.repeat[0].cron=0 3 * * *",
                "sluice.queues.reports.repeat[0].every=1h",
                "sluice.queues.reports.repeat[0].job=digest");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.queues.reports.repeat[0].cron' has the"
                        + " value '0 3 * * *': 'every' is set as well.");
        assertThat(analysis.getAction())
                .isEqualTo("Set either 'sluice.queues.reports.repeat[0].cron' (such as 0 3 * * *) or"
                        + " 'sluice.queues.reports.repeat[0].every' (such as 10m).");
    }

    @Test
    void namesABackoffWithoutItsMaximumAndACronThatDoesNotParse() {
        assertThat(SluiceFailureAnalyzerTest.analysisOf(
                                runner,
                                "sluice.queues.mail.job-defaults.backoff.type=exponential",
                                "sluice.queues.mail.job-defaults.backoff.delay=1s")
                        .getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.queues.mail.job-defaults.backoff.max' is"
                        + " missing: backoff 'exponential' needs it.");
        assertThat(SluiceFailureAnalyzerTest.analysisOf(
                                runner,
                                "sluice.queues.mail.repeat[0].id=nightly",
                                "sluice.queues.mail.repeat[0].cron=at three",
                                "sluice.queues.mail.repeat[0].job=digest")
                        .getDescription())
                .startsWith("Invalid Sluice configuration: property 'sluice.queues.mail.repeat[0].cron' has the"
                        + " value 'at three': ");
    }

    @Test
    void makesTheRatesOfItsPropertiesAdaptive() {
        runner.withPropertyValues(
                        "sluice.queues.calls.rate.policy=gcra",
                        "sluice.queues.calls.rate.limit=200",
                        "sluice.queues.calls.rate.period=1s",
                        "sluice.queues.calls.rate.burst=20",
                        "sluice.queues.calls.rate.adaptive.floor=5",
                        "sluice.queues.calls.rate.adaptive.climb=10s",
                        "sluice.queues.calls.group.rate.policy=token-bucket",
                        "sluice.queues.calls.group.rate.limit=10",
                        "sluice.queues.calls.group.rate.period=1s",
                        "sluice.queues.calls.group.rate.adaptive.enabled=true",
                        "sluice.queues.plain.rate.policy=gcra",
                        "sluice.queues.plain.rate.limit=10",
                        "sluice.queues.plain.rate.period=1s",
                        "sluice.queues.plain.rate.adaptive.enabled=false",
                        "sluice.queues.plain.rate.adaptive.floor=1")
                .run(context -> {
                    SluiceRegistry registry = context.getBean(SluiceRegistry.class);
                    QueueOptions calls = registry.queue("calls").options();
                    assertThat(calls.rate())
                            .isEqualTo(AdaptiveRate.of(Gcra.of(200, Duration.ofSeconds(1), 20))
                                    .withFloor(5)
                                    .withClimb(Duration.ofSeconds(10)));
                    assertThat(calls.groupDefaults().rate())
                            .isEqualTo(AdaptiveRate.of(TokenBucket.of(10, Duration.ofSeconds(1))));
                    assertThat(registry.queue("plain").options().rate())
                            .isEqualTo(Gcra.of(10, Duration.ofSeconds(1), 10));
                });
    }

    @Test
    void refusesAnAdaptiveFloorAboveTheCeilingNamingTheProperty() {
        assertThat(SluiceFailureAnalyzerTest.analysisOf(
                                runner,
                                "sluice.queues.calls.rate.policy=gcra",
                                "sluice.queues.calls.rate.limit=10",
                                "sluice.queues.calls.rate.period=1s",
                                "sluice.queues.calls.rate.adaptive.floor=50")
                        .getDescription())
                .startsWith("Invalid Sluice configuration: property 'sluice.queues.calls.rate.adaptive.floor' has the"
                        + " value '50.0': floor must be above 0 and at most the ceiling's rate (10.0 per second)");
    }

    @Test
    void refusesAMisspelledJobDefaultAndSuggestsTheNearest() {
        FailureAnalysis analysis =
                SluiceFailureAnalyzerTest.analysisOf(runner, "sluice.queues.mail.job-defaults.keep-complete.count=5");

        assertThat(analysis.getAction()).startsWith("Did you mean 'sluice.queues.mail.job-defaults.keep-completed'?");
    }

    @Configuration(proxyBeanMethods = false)
    static class Digest {
        final List<Job<String>> ran = new CopyOnWriteArrayList<>();

        @Bean
        ManualClock clock() {
            return new ManualClock();
        }

        @Bean
        Processor<String> digester() {
            return job -> {
                ran.add(job.job());
                return Result.done();
            };
        }
    }
}
