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

    /** The analysis of the startup failure of {@code runner} with {@code properties}; fails if there is none. */
    static FailureAnalysis analysisOf(ApplicationContextRunner runner, String... properties) {
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
                .isEqualTo("Set 'sluice.limiters.api.policy' to one of token-bucket, fixed-window,"
                        + " sliding-window-log, sliding-window-counter, gcra or concurrency.");
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
                .isEqualTo("Remove 'sluice.limiters.api.refill': policy 'fixed-window' takes limit and window.");
    }

    @Test
    void namesADurationThatIsNotOne() {
        FailureAnalysis analysis = analysisOf(
                runner,
                "sluice.limiters.api.policy=fixed-window",
                "sluice.limiters.api.limit=5",
                "sluice.limiters.api.window=soon");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.limiters.api.window' has the value 'soon':"
                        + " cannot be read as a duration such as 500ms, 10s, 1m or PT10S.");
        assertThat(analysis.getAction())
                .isEqualTo("Set 'sluice.limiters.api.window' to a duration such as 500ms, 10s, 1m or PT10S.");
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
        assertThat(analysis.getAction())
                .isEqualTo("Add dev.sluice:sluice-redis to the application's dependencies, or remove"
                        + " 'sluice.redis.url' to run on the in-memory engine.");
    }

    private static final String[] TWO_RULES = {
        "sluice.limiters.api.policy=fixed-window",
        "sluice.limiters.api.limit=5",
        "sluice.limiters.api.window=1s",
        "sluice.http.rules[0].name=first",
        "sluice.http.rules[0].limits=api",
        "sluice.http.rules[1].name=second",
        "sluice.http.rules[1].limits=api"
    };

    private static FailureAnalysis analysisOfRules(String... more) {
        String[] properties = java.util.Arrays.copyOf(TWO_RULES, TWO_RULES.length + more.length);
        System.arraycopy(more, 0, properties, TWO_RULES.length, more.length);
        return analysisOf(
                new WebApplicationContextRunner()
                        .withConfiguration(AutoConfigurations.of(
                                SluiceAutoConfiguration.class, SluiceHttpAutoConfiguration.class)),
                properties);
    }

    /** Regression: a gap in a list's indexes was reported as the list itself, missing, with no word of the gap. */
    @Test
    void namesTheElementAfterAGapInAListWithItsOwnValue() {
        FailureAnalysis analysis =
                analysisOfRules("sluice.http.rules[3].name=fourth", "sluice.http.rules[3].limits=api");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[3].limits' has the value 'api':"
                        + " it was not read, because an element of 'sluice.http.rules' before [3] is missing, and"
                        + " Spring Boot reads a list's elements from [0] up to the first missing index.");
        assertThat(analysis.getAction()).isEqualTo("Number the elements of 'sluice.http.rules' from [0] without gaps.");
    }

    /** Regression: the list's name was reported with the value of its first element. */
    @Test
    void namesTheElementAfterAGapInAListInsideAListElement() {
        FailureAnalysis analysis = analysisOfRules(
                "sluice.http.rules[2].name=third",
                "sluice.http.rules[2].limits[0]=api",
                "sluice.http.rules[2].limits[2]=other");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[2].limits[2]' has the value"
                        + " 'other': it was not read, because an element of 'sluice.http.rules[2].limits' before [2]"
                        + " is missing, and Spring Boot reads a list's elements from [0] up to the first missing"
                        + " index.");
    }

    @Test
    void namesAValueOfTheWrongTypeInTheSecondRule() {
        FailureAnalysis analysis = analysisOfRules("sluice.http.rules[1].cost=lots");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[1].cost' has the value 'lots':"
                        + " cannot be read as a whole number.");
        assertThat(analysis.getAction()).isEqualTo("Set 'sluice.http.rules[1].cost' to a whole number.");
    }

    @Test
    void namesAZeroCostInTheSecondRule() {
        FailureAnalysis analysis = analysisOfRules("sluice.http.rules[1].cost=0");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[1].cost' has the value '0':"
                        + " must be at least 1.");
        assertThat(analysis.getAction()).isEqualTo("Set 'sluice.http.rules[1].cost' to a whole number, at least 1.");
    }

    /** Regression: the whole list was named, with all its values, and the action read "to the range that...". */
    @Test
    void namesTheBadPathOfTheSecondRuleByItsIndex() {
        FailureAnalysis analysis = analysisOfRules("sluice.http.rules[1].paths=/ok/**,nope");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[1].paths[1]' has the value"
                        + " 'nope': path pattern of rule 'second' must start with '/', was 'nope'.");
        assertThat(analysis.getAction())
                .isEqualTo("Change 'sluice.http.rules[1].paths[1]' so that it meets the condition above.");
    }

    @Test
    void namesTheBadTrustedProxyByItsIndex() {
        FailureAnalysis analysis = analysisOfRules(
                "sluice.http.trusted-proxies[0]=10.0.0.0/8", "sluice.http.trusted-proxies[1]=10.0.0.300");

        assertThat(analysis.getDescription())
                .startsWith("Invalid Sluice configuration: property 'sluice.http.trusted-proxies[1]' has the value"
                        + " '10.0.0.300': ");
    }

    @Test
    void namesAValueThatIsNotAList() {
        FailureAnalysis analysis = analysisOf(runner, "sluice.http.rules=first");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules' has the value 'first': cannot"
                        + " be read as a list.");
        assertThat(analysis.getAction())
                .isEqualTo("Set 'sluice.http.rules' to a list: in YAML one '- ' item per element, in properties"
                        + " sluice.http.rules[0], sluice.http.rules[1] and so on.");
    }

    /** Regression: the action read "Set 'sluice.shutdown.deadline' to 0s or a a positive duration". */
    @Test
    void namesANegativeShutdownDeadlineAsWritten() {
        FailureAnalysis analysis = analysisOf(runner, "sluice.shutdown.deadline=-1s");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.shutdown.deadline' has the value '-1 s':"
                        + " must not be negative.");
        assertThat(analysis.getAction())
                .isEqualTo("Set 'sluice.shutdown.deadline' to 0s or a positive duration such as 500ms, 10s, 1m or"
                        + " PT10S.");
    }

    /** Regression: a misspelled when-unavailable was ignored, leaving the limiter fail-closed. */
    @Test
    void refusesAMisspelledKeyOfALimiterAndSuggestsTheNearest() {
        FailureAnalysis analysis = analysisOf(
                runner,
                "sluice.limiters.api.policy=fixed-window",
                "sluice.limiters.api.limit=5",
                "sluice.limiters.api.window=1s",
                "sluice.limiters.api.when-unavailible=fail-open");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.limiters.api.when-unavailible' has the value"
                        + " 'fail-open': Sluice has no such property, and would ignore it.");
        assertThat(analysis.getAction())
                .isEqualTo("Did you mean 'sluice.limiters.api.when-unavailable'? Under 'sluice.limiters.api' Sluice"
                        + " reads policy, limit, window, period, refill, burst, lease-timeout, when-unavailable and"
                        + " max-keys.");
    }

    @Test
    void refusesAMisspelledKeyOfAQueuesWorker() {
        FailureAnalysis analysis = analysisOf(
                runner.withUserConfiguration(OneProcessor.class), "sluice.queues.mail.worker.procesor=sender");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.queues.mail.worker.procesor' has the value"
                        + " 'sender': Sluice has no such property, and would ignore it.");
        assertThat(analysis.getAction())
                .isEqualTo("Did you mean 'sluice.queues.mail.worker.processor'? Under 'sluice.queues.mail.worker'"
                        + " Sluice reads processor, concurrency, lease-time and max-stalls.");
    }

    @Test
    void refusesAMisspelledKeyOfTheSecondRuleAndNamesTheOthers() {
        FailureAnalysis analysis = analysisOfRules("sluice.http.rules[1].limit=api", "sluice.http.rules[1].pahts=/x");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.http.rules[1].limit' has the value 'api':"
                        + " Sluice has no such property, and would ignore it (nor sluice.http.rules[1].pahts).");
        assertThat(analysis.getAction())
                .isEqualTo("Did you mean 'sluice.http.rules[1].limits'? Under 'sluice.http.rules[1]' Sluice reads"
                        + " name, paths, methods, key, limits, cost and exempt.");
    }

    @Test
    void refusesAKeyUnderAPlainValue() {
        FailureAnalysis analysis = analysisOf(runner, "sluice.shutdown.deadline.seconds=3");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.shutdown.deadline.seconds' has the value"
                        + " '3': Sluice has no such property, and would ignore it.");
        assertThat(analysis.getAction())
                .isEqualTo("Remove 'sluice.shutdown.deadline.seconds': 'sluice.shutdown.deadline' has no properties"
                        + " under it.");
    }

    @Test
    void readsTheSameKeysWrittenInCamelCase() {
        runner.withPropertyValues(
                        "sluice.limiters.api.policy=fixed-window",
                        "sluice.limiters.api.limit=5",
                        "sluice.limiters.api.window=1s",
                        "sluice.limiters.api.whenUnavailable=fail-open")
                .run(context -> assertThat(context.getBean(SluiceRegistry.class)
                                .limiter("api")
                                .options()
                                .whenUnavailable())
                        .isEqualTo(dev.sluice.limit.WhenUnavailable.failOpen()));
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
                .contains("Set 'sluice.limiters.api.policy' to one of token-bucket, fixed-window");
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
