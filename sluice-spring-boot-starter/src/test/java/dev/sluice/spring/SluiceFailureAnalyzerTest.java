package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A malformed property stops the startup with one message: the property, what was wrong, what is allowed. */
@ExtendWith(OutputCaptureExtension.class)
class SluiceFailureAnalyzerTest {
    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class));

    private static FailureAnalysis analysisOf(ApplicationContextRunner runner, String... properties) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        runner.withPropertyValues(properties).run(context -> failure.set(context.getStartupFailure()));
        return analysisOf(failure.get());
    }

    private static FailureAnalysis analysisOf(WebApplicationContextRunner runner, String... properties) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        runner.withPropertyValues(properties).run(context -> failure.set(context.getStartupFailure()));
        return analysisOf(failure.get());
    }

    private static FailureAnalysis analysisOf(Throwable failure) {
        assertThat(failure).as("startup failure").isNotNull();
        FailureAnalysis analysis = new SluiceFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("analysis of %s", failure).isNotNull();
        return analysis;
    }

    @Test
    void namesAnUnknownPolicyAndListsThePolicies() {
        FailureAnalysis analysis =
                analysisOf(runner, "sluice.limiters.api.policy=leaky-bucket", "sluice.limiters.api.limit=5");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.limiters.api.policy' has the value"
                        + " 'leaky-bucket': no such policy here.");
        assertThat(analysis.getAction())
                .isEqualTo("Set 'sluice.limiters.api.policy' to token-bucket, fixed-window, sliding-window-log,"
                        + " sliding-window-counter, gcra, concurrency.");
    }

    @Test
    void namesANegativeLimit() {
        FailureAnalysis analysis = analysisOf(
                runner,
                "sluice.limiters.api.policy=fixed-window",
                "sluice.limiters.api.limit=-5",
                "sluice.limiters.api.window=1s");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.limiters.api.limit' has the value '-5':"
                        + " must be at least 1.");
        assertThat(analysis.getAction()).isEqualTo("Set 'sluice.limiters.api.limit' to a whole number, at least 1.");
    }

    @Test
    void namesAMissingWindowAndAPropertyThePolicyDoesNotTake() {
        assertThat(analysisOf(runner, "sluice.limiters.api.policy=sliding-window-log", "sluice.limiters.api.limit=5")
                        .getDescription())
                .contains("'sluice.limiters.api.window' is missing: policy 'sliding-window-log' needs it");
        assertThat(analysisOf(
                                runner,
                                "sluice.limiters.api.policy=fixed-window",
                                "sluice.limiters.api.limit=5",
                                "sluice.limiters.api.window=1s",
                                "sluice.limiters.api.refill=2")
                        .getAction())
                .isEqualTo("Set 'sluice.limiters.api.refill' to for fixed-window: limit, window.");
    }

    @Test
    void namesADurationThatIsNotOne() {
        FailureAnalysis analysis = analysisOf(
                runner,
                "sluice.limiters.api.policy=fixed-window",
                "sluice.limiters.api.limit=5",
                "sluice.limiters.api.window=soon");

        assertThat(analysis.getDescription())
                .startsWith("Invalid Sluice configuration: property 'sluice.limiters.api.window' has the value 'soon'");
        assertThat(analysis.getAction()).contains("500ms, 10s, 1m or PT10S");
    }

    @Test
    void namesAConcurrencyLimitAsAQueueRate() {
        FailureAnalysis analysis =
                analysisOf(runner, "sluice.queues.mail.rate.policy=concurrency", "sluice.queues.mail.rate.limit=5");

        assertThat(analysis.getDescription()).contains("'sluice.queues.mail.rate.policy' has the value 'concurrency'");
        assertThat(analysis.getAction()).doesNotContain("concurrency");
    }

    @Test
    void namesAWhenUnavailableAnswerThatIsNotOne() {
        FailureAnalysis analysis = analysisOf(
                runner,
                "sluice.limiters.api.policy=token-bucket",
                "sluice.limiters.api.limit=5",
                "sluice.limiters.api.period=1s",
                "sluice.limiters.api.when-unavailable=fall-back:2");

        assertThat(analysis.getDescription())
                .contains("'sluice.limiters.api.when-unavailable' has the value 'fall-back:2'");
        assertThat(analysis.getAction()).contains("fail-closed, fail-open or fall-back:SHARE");
    }

    @Test
    void namesARuleLimitThatNoLimiterDeclares() {
        FailureAnalysis analysis = analysisOf(
                new WebApplicationContextRunner()
                        .withConfiguration(AutoConfigurations.of(
                                SluiceAutoConfiguration.class, SluiceHttpAutoConfiguration.class)),
                "sluice.limiters.api.policy=fixed-window",
                "sluice.limiters.api.limit=5",
                "sluice.limiters.api.window=1s",
                "sluice.http.rules[0].name=api",
                "sluice.http.rules[0].limits=api,apii");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[0].limits[1]' has the value"
                        + " 'apii': no limiter of that name is declared.");
        assertThat(analysis.getAction())
                .isEqualTo("Set 'sluice.http.rules[0].limits[1]' to names of limiters declared under sluice.limiters:"
                        + " api.");
    }

    @Test
    void namesAWorkerWhoseProcessorBeanIsMissing() {
        FailureAnalysis analysis = analysisOf(
                runner.withUserConfiguration(OneProcessor.class), "sluice.queues.mail.worker.processor=mailer");

        assertThat(analysis.getDescription())
                .startsWith("Invalid Sluice configuration: property 'sluice.queues.mail.worker.processor' has the"
                        + " value 'mailer': names no Processor bean");
        assertThat(analysis.getAction()).contains("this context has [sender]");
    }

    @Test
    void namesARedisUrlWithoutTheRedisEngineOnTheClasspath() {
        FailureAnalysis analysis = analysisOf(
                runner.withClassLoader(new FilteredClassLoader("dev.sluice.redis.")),
                "sluice.redis.url=redis://127.0.0.1:6379");

        assertThat(analysis.getDescription())
                .contains("'sluice.redis.url' has the value 'redis://127.0.0.1:6379': the Redis engine is not on the"
                        + " classpath");
    }

    @Test
    void leavesOtherFailuresToSpringBoot() {
        assertThat(new SluiceFailureAnalyzer().analyze(new IllegalStateException("not ours")))
                .isNull();
    }

    @Test
    void stopsSpringApplicationWithTheAnalyzersMessage(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Empty.class);
        application.setWebApplicationType(WebApplicationType.NONE);

        assertThatThrownBy(() -> application
                        .run(
                                "--spring.config.name=none",
                                "--sluice.limiters.api.policy=leaky-bucket",
                                "--sluice.limiters.api.limit=5")
                        .close())
                .hasRootCauseInstanceOf(SluicePropertyException.class);
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("Invalid Sluice configuration: property 'sluice.limiters.api.policy' has the value"
                        + " 'leaky-bucket': no such policy here.")
                .contains("Set 'sluice.limiters.api.policy' to token-bucket, fixed-window");
    }

    @Configuration(proxyBeanMethods = false)
    @org.springframework.boot.autoconfigure.EnableAutoConfiguration
    static class Empty {}

    @Configuration(proxyBeanMethods = false)
    static class OneProcessor {
        @Bean
        Processor<String> sender() {
            return job -> Result.done();
        }
    }
}
