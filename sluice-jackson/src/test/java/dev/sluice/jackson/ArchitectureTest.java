package dev.sluice.jackson;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The shape of sluice-jackson: it needs the core's public API and Jackson only, so it works on every engine, and
 * its public API is {@link JsonCodec} alone. Each rule also runs against a fixture that breaks it.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sluice.jackson");

    static final ArchRule USES_ONLY_THE_CORE_API_AND_JACKSON = classes()
            .that()
            .resideInAPackage("dev.sluice.jackson..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "com.fasterxml.jackson..", "dev.sluice.queue", "dev.sluice.jackson..")
            .because("a codec is engine-neutral: it sees payloads and bytes, nothing of an engine");

    static final ArchRule THE_PUBLIC_API_IS_JSON_CODEC = classes()
            .that()
            .resideInAPackage("dev.sluice.jackson..")
            .and()
            .arePublic()
            .should()
            .haveFullyQualifiedName(JsonCodec.class.getName())
            .because("the name rule, the default mapper and the messages are package-private beside it");

    @Test
    void theImportHoldsTheMainClassesOnly() {
        assertThat(MAIN.contain(JsonCodec.class)).isTrue();
        assertThat(MAIN.contain(ArchitectureTest.class)).isFalse();
    }

    @Test
    void usesOnlyTheCoreApiAndJackson() {
        USES_ONLY_THE_CORE_API_AND_JACKSON.check(MAIN);
    }

    @Test
    void thePublicApiIsJsonCodec() {
        THE_PUBLIC_API_IS_JSON_CODEC.check(MAIN);
    }

    private static EvaluationResult evaluate(ArchRule rule, Class<?> fixture) {
        return rule.evaluate(new ClassFileImporter().importClasses(fixture));
    }

    @Test
    void theDependencyRuleCatchesAnEngine() {
        EvaluationResult result = evaluate(USES_ONLY_THE_CORE_API_AND_JACKSON, OpensAnEngine.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains("dev.sluice.Sluice");
    }

    @Test
    void theApiRuleCatchesAnotherPublicClass() {
        EvaluationResult result = evaluate(THE_PUBLIC_API_IS_JSON_CODEC, PublicByMistake.class);

        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains(PublicByMistake.class.getName());
    }

    // ---- fixtures that break the rules (test classes: never part of the MAIN import) ----

    /** Opens an engine of its own. */
    static class OpensAnEngine {
        Object open() {
            return dev.sluice.Sluice.inMemory();
        }
    }

    /** A public class that is not part of the API. */
    public static class PublicByMistake {}
}
