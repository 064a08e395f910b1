package dev.sluice.http;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The shape of sluice-http: it works on any engine through the core's API, and only its adapter knows servlets. */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sluice.http");

    @Test
    void usesNoEngineAndNoEngineInternals() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.sluice.redis..", "dev.sluice.internal..", "io.lettuce..")
                .check(MAIN);
    }

    @Test
    void onlyTheServletAdapterKnowsTheServletApi() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.sluice.http.servlet..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("jakarta.servlet..")
                .check(MAIN);
    }
}
