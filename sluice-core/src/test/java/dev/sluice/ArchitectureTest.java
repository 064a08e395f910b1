package dev.sluice;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.sluice.fixture.cycle.one.First;
import dev.sluice.fixture.cycle.two.Second;
import dev.sluice.internal.InMemoryEngine;
import dev.sluice.internal.limit.Waiting;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shape of sluice-core: the public API hides the engine, core needs nothing beyond the JDK and SLF4J,
 * and only the system clock reads or waits on real time. Every rule is also run against a fixture that breaks
 * it, so a rule that can no longer fail is caught.
 */
class ArchitectureTest {
    private static final String[] API_PACKAGES = {
        "dev.sluice", "dev.sluice.limit", "dev.sluice.queue", "dev.sluice.time"
    };
    private static final String INTERNAL = "dev.sluice.internal..";
    private static final String SYSTEM_CLOCK = "dev.sluice.time.SystemClock";

    /** The main classes of sluice-core, nothing from the tests. */
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sluice");

    private static final DescribedPredicate<JavaClass> INTERNAL_TYPE = JavaClass.Predicates.resideInAPackage(INTERNAL);

    // ---- the rules ----

    static final ArchRule API_SIGNATURES_DO_NOT_EXPOSE_INTERNAL_TYPES = members()
            .that()
            .areDeclaredInClassesThat()
            .resideInAnyPackage(API_PACKAGES)
            .and()
            .areDeclaredInClassesThat()
            .arePublic()
            .and(visibleOutsideThePackage())
            .should(notInvolveInternalTypes())
            .because("users import only dev.sluice, dev.sluice.limit, dev.sluice.queue and dev.sluice.time");

    static final ArchRule API_TYPES_DO_NOT_EXTEND_INTERNAL_TYPES = classes()
            .that()
            .resideInAnyPackage(API_PACKAGES)
            .and()
            .arePublic()
            .should()
            .notBeAssignableTo(INTERNAL_TYPE)
            .because("a public API type must not inherit the engine's types");

    static final ArchRule ONLY_SLUICE_ROOT_REACHES_THE_ENGINE = noClasses()
            .that()
            .resideInAnyPackage("dev.sluice.limit..", "dev.sluice.queue..", "dev.sluice.time..")
            .or()
            .resideInAPackage("dev.sluice")
            .and()
            .doNotHaveFullyQualifiedName(Sluice.class.getName())
            .should()
            .dependOnClassesThat()
            .resideInAPackage(INTERNAL)
            .because("only Sluice.inMemory() creates the engine; the rest of the API does not know it");

    static final ArchRule CORE_DEPENDS_ONLY_ON_JDK_AND_SLF4J = classes()
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "org.slf4j..", "dev.sluice..", "com.cronutils..")
            .because("sluice-core has no dependencies but SLF4J and the cron parser");

    static final ArchRule ONLY_SCHEDULE_PARSES_CRON = noClasses()
            .that()
            .doNotHaveFullyQualifiedName("dev.sluice.queue.Schedule")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("com.cronutils..")
            .because("the cron parser stays behind Schedule, so it can be replaced without touching the engine");

    static final ArchRule ONLY_THE_SYSTEM_CLOCK_READS_REAL_TIME = noClasses()
            .that()
            .doNotHaveFullyQualifiedName(SYSTEM_CLOCK)
            .should()
            .callMethodWhere(readsOrWaitsOnRealTime())
            .because("engine code asks its SluiceClock, so tests can run on a ManualClock");

    /**
     * Each package below {@code dev.sluice} is a slice. The root package is left out: it holds the entry points,
     * {@code Sluice} (which names the API types and creates the in-memory engine) and {@code SluiceException}
     * (which every package may throw), so it is the one package both above and below the others.
     */
    static final ArchRule NO_CYCLES_BETWEEN_PACKAGES = slices().matching("dev.sluice.(**)")
            .should()
            .beFreeOfCycles()
            .because("a package that depends on another which depends back on it cannot be understood, tested or"
                    + " moved alone");

    // ---- the rules on sluice-core ----

    @Test
    void theImportHoldsTheMainClassesOnly() {
        assertThat(CORE.contain("dev.sluice.internal.limit.KeyTable")).isTrue();
        assertThat(CORE.contain(SYSTEM_CLOCK)).isTrue();
        assertThat(CORE.contain(Sluice.class)).isTrue();
        assertThat(CORE.contain(ArchitectureTest.class)).isFalse();
        assertThat(CORE.contain(LeakyApi.class)).isFalse();
    }

    @Test
    void publicApiSignaturesDoNotExposeInternalTypes() {
        API_SIGNATURES_DO_NOT_EXPOSE_INTERNAL_TYPES.check(CORE);
    }

    @Test
    void publicApiTypesDoNotExtendInternalTypes() {
        API_TYPES_DO_NOT_EXTEND_INTERNAL_TYPES.check(CORE);
    }

    @Test
    void onlySluiceReachesTheEngine() {
        ONLY_SLUICE_ROOT_REACHES_THE_ENGINE.check(CORE);
    }

    @Test
    void coreDependsOnlyOnTheJdkSlf4jAndItself() {
        CORE_DEPENDS_ONLY_ON_JDK_AND_SLF4J.check(CORE);
    }

    @Test
    void onlyScheduleParsesCron() {
        ONLY_SCHEDULE_PARSES_CRON.check(CORE);
    }

    @Test
    void noCyclesBetweenPackages() {
        NO_CYCLES_BETWEEN_PACKAGES.check(CORE);
    }

    @Test
    void onlyTheSystemClockReadsOrWaitsOnRealTime() {
        ONLY_THE_SYSTEM_CLOCK_READS_REAL_TIME.check(CORE);
    }

    // ---- every rule can fail ----

    private static EvaluationResult evaluate(ArchRule rule, Class<?>... fixtures) {
        return rule.evaluate(new ClassFileImporter().importClasses(fixtures));
    }

    @Test
    void theSignatureRuleCatchesAnInternalTypeInAPublicSignature() {
        EvaluationResult result = evaluate(API_SIGNATURES_DO_NOT_EXPOSE_INTERNAL_TYPES, LeakyApi.class);
        assertThat(result.hasViolation()).isTrue();
        String report = result.getFailureReport().toString();
        assertThat(report)
                .contains("engine()")
                .contains("stepper(")
                .contains("leakedField")
                .contains(InMemoryEngine.class.getName());
        assertThat(report).doesNotContain("hidden()").doesNotContain("fine()");
    }

    @Test
    void theInheritanceRuleCatchesAnApiTypeThatImplementsAnInternalType() {
        EvaluationResult result = evaluate(API_TYPES_DO_NOT_EXTEND_INTERNAL_TYPES, StepperApi.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains(StepperApi.class.getName());
    }

    @Test
    void theLayeringRuleCatchesAnotherApiClassUsingTheEngine() {
        EvaluationResult result = evaluate(ONLY_SLUICE_ROOT_REACHES_THE_ENGINE, QuietlyUsesTheEngine.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains(InMemoryEngine.class.getName());
    }

    @Test
    void theCycleRuleCatchesTwoPackagesThatDependOnEachOther() {
        EvaluationResult result = evaluate(NO_CYCLES_BETWEEN_PACKAGES, First.class, Second.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString())
                .contains(First.class.getName())
                .contains(Second.class.getName());
    }

    @Test
    void theDependencyRuleCatchesAThirdPartyDependency() {
        EvaluationResult result = evaluate(CORE_DEPENDS_ONLY_ON_JDK_AND_SLF4J, UsesAssertJ.class);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains("org.assertj");
    }

    @Test
    void theClockRuleCatchesEveryWayOfReadingOrWaitingOnRealTime() {
        EvaluationResult result = evaluate(ONLY_THE_SYSTEM_CLOCK_READS_REAL_TIME, ReadsRealTime.class);
        assertThat(result.hasViolation()).isTrue();
        String report = result.getFailureReport().toString();
        assertThat(report)
                .contains("System.currentTimeMillis()")
                .contains("System.nanoTime()")
                .contains("Instant.now()")
                .contains("Thread.sleep(long)")
                .contains("TimeUnit.sleep(long)");
        assertThat(result.getFailureReport().getDetails()).hasSize(5);
    }

    // ---- the predicates ----

    private static DescribedPredicate<JavaMember> visibleOutsideThePackage() {
        return DescribedPredicate.describe(
                "are public or protected",
                member -> member.getModifiers().contains(JavaModifier.PUBLIC)
                        || member.getModifiers().contains(JavaModifier.PROTECTED));
    }

    private static ArchCondition<JavaMember> notInvolveInternalTypes() {
        return new ArchCondition<>("not involve types of " + INTERNAL + " in their signature") {
            @Override
            public void check(JavaMember member, ConditionEvents events) {
                Set<JavaClass> involved = new LinkedHashSet<>();
                if (member instanceof JavaCodeUnit codeUnit) {
                    involved.addAll(codeUnit.getAllInvolvedRawTypes());
                    codeUnit.getThrowsClause().getTypes().forEach(involved::add);
                } else if (member instanceof JavaField field) {
                    involved.addAll(field.getType().getAllInvolvedRawTypes());
                }
                for (JavaClass type : involved) {
                    JavaClass base = type.isArray() ? type.getBaseComponentType() : type;
                    if (INTERNAL_TYPE.test(base)) {
                        events.add(SimpleConditionEvent.violated(
                                member, member.getDescription() + " exposes " + base.getName()));
                    }
                }
            }
        };
    }

    private static DescribedPredicate<JavaMethodCall> readsOrWaitsOnRealTime() {
        return DescribedPredicate.describe(
                "reads or waits on real time (System.currentTimeMillis/nanoTime, java.time *.now,"
                        + " java.time.Clock.system*, Thread.sleep, TimeUnit.sleep, LockSupport.parkNanos/parkUntil,"
                        + " CompletableFuture.delayedExecutor)",
                call -> {
                    String owner = call.getTargetOwner().getName();
                    String name = call.getName();
                    return switch (owner) {
                        case "java.lang.System" -> name.equals("currentTimeMillis") || name.equals("nanoTime");
                        case "java.lang.Thread", "java.util.concurrent.TimeUnit" -> name.equals("sleep");
                        case "java.time.Clock" -> name.startsWith("system");
                        case "java.util.concurrent.locks.LockSupport" ->
                            name.startsWith("parkNanos") || name.startsWith("parkUntil");
                        case "java.util.concurrent.CompletableFuture" -> name.equals("delayedExecutor");
                        default -> owner.startsWith("java.time.") && name.equals("now");
                    };
                });
    }

    // ---- fixtures that break the rules (test classes: never part of the CORE import) ----

    /** A public API class (package dev.sluice) leaking engine types. */
    public static class LeakyApi {
        public InMemoryEngine leakedField;

        public InMemoryEngine engine() {
            return null;
        }

        public void stepper(java.util.List<Waiting.Stepper> steppers) {}

        InMemoryEngine hidden() {
            return null;
        }

        public String fine() {
            return "";
        }
    }

    /** A public API type implementing an engine interface. */
    public interface StepperApi extends Waiting.Stepper {}

    /** An API class other than Sluice creating the engine in its body. */
    static class QuietlyUsesTheEngine {
        Object make() {
            return new InMemoryEngine(dev.sluice.time.SluiceClock.system());
        }
    }

    /** Depends on a library core must not depend on. */
    static class UsesAssertJ {
        Object check() {
            return org.assertj.core.api.Assertions.assertThat(1);
        }
    }

    /** Reads the real clock and sleeps for real, each in a different way. */
    static class ReadsRealTime {
        long read() throws InterruptedException {
            long a = System.currentTimeMillis();
            long b = System.nanoTime();
            Instant c = Instant.now();
            Thread.sleep(0);
            TimeUnit.NANOSECONDS.sleep(0);
            return a + b + c.getNano();
        }
    }
}
