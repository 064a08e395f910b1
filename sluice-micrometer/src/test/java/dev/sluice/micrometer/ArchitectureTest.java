package dev.sluice.micrometer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * The shape of sluice-micrometer: it uses the engines' public API only, so it works with every engine; its
 * public API is three classes; and every meter is registered through {@link MeterSet}, which is what lets a
 * binding remove all of them. Every rule also runs against a fixture that breaks it.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sluice.micrometer");

    static final ArchRule USES_ONLY_THE_PUBLIC_API_OF_THE_ENGINES = classes()
            .that()
            .resideInAPackage("dev.sluice.micrometer..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage(
                    "java..",
                    "io.micrometer..",
                    "dev.sluice",
                    "dev.sluice.limit",
                    "dev.sluice.queue",
                    "dev.sluice.time",
                    "dev.sluice.micrometer..")
            .because("metrics bind through the core's listener interfaces, the same on every engine");

    static final ArchRule THE_PUBLIC_API_IS_THREE_CLASSES = classes()
            .that()
            .resideInAPackage("dev.sluice.micrometer..")
            .and()
            .arePublic()
            .should()
            .haveNameMatching(
                    "dev\\.sluice\\.micrometer\\.(SluiceMetrics|MetricsOptions|MetricsOptions\\$Builder|MeterNames)")
            .because("everything else is package-private beside them");

    static final ArchRule ONLY_THE_METER_SET_REGISTERS_METERS = noClasses()
            .that()
            .doNotHaveFullyQualifiedName(MeterSet.class.getName())
            .should()
            .callMethodWhere(com.tngtech.archunit.base.DescribedPredicate.describe(
                    "registers a meter",
                    call -> call.getName().equals("register")
                            && call.getTargetOwner().getPackageName().startsWith("io.micrometer")))
            .because("a meter registered elsewhere would stay in the registry after the binding closes");

    @Test
    void theImportHoldsTheMainClassesOnly() {
        assertThat(MAIN.contain(SluiceMetrics.class)).isTrue();
        assertThat(MAIN.contain(ArchitectureTest.class)).isFalse();
    }

    @Test
    void usesOnlyThePublicApiOfTheEngines() {
        USES_ONLY_THE_PUBLIC_API_OF_THE_ENGINES.check(MAIN);
    }

    @Test
    void thePublicApiIsThreeClasses() {
        THE_PUBLIC_API_IS_THREE_CLASSES.check(MAIN);
    }

    @Test
    void onlyTheMeterSetRegistersMeters() {
        ONLY_THE_METER_SET_REGISTERS_METERS.check(MAIN);
    }

    private static EvaluationResult evaluate(ArchRule rule, Class<?>... fixtures) {
        return rule.evaluate(new ClassFileImporter().importClasses(fixtures));
    }

    @Test
    void theDependencyRuleCatchesAnEngineInternal() {
        EvaluationResult result = evaluate(USES_ONLY_THE_PUBLIC_API_OF_THE_ENGINES, UsesTheEngine.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains("dev.sluice.internal.InMemoryEngine");
    }

    @Test
    void theApiRuleCatchesAnotherPublicClass() {
        EvaluationResult result = evaluate(THE_PUBLIC_API_IS_THREE_CLASSES, PublicByMistake.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains(PublicByMistake.class.getName());
    }

    @Test
    void theRegistrationRuleCatchesAMeterRegisteredElsewhere() {
        EvaluationResult result = evaluate(ONLY_THE_METER_SET_REGISTERS_METERS, RegistersItself.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains(RegistersItself.class.getName());
    }

    // ---- fixtures that break the rules (test classes: never part of the MAIN import) ----

    /** Reaches into the in-memory engine. */
    static class UsesTheEngine {
        Object make() {
            return new dev.sluice.internal.InMemoryEngine(dev.sluice.time.SluiceClock.system());
        }
    }

    /** A public class that is not part of the API. */
    public static class PublicByMistake {}

    /** Registers a counter of its own. */
    static class RegistersItself {
        Counter counter(MeterRegistry registry) {
            return Counter.builder("sluice.stray").register(registry);
        }
    }
}
