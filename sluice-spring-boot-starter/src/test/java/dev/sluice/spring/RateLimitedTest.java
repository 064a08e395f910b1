package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.RateLimiter;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@link RateLimited} on beans called directly: who is limited, by which key, and what a denial does. */
class RateLimitedTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(SluiceAutoConfiguration.class, SluiceAnnotationsAutoConfiguration.class))
            .withUserConfiguration(Beans.class)
            .withPropertyValues(
                    "sluice.limiters.reports.policy=fixed-window",
                    "sluice.limiters.reports.limit=2",
                    "sluice.limiters.reports.window=1h");

    /** A service as a user writes one: each method records its calls. */
    static class Reports {
        private final List<String> ran = new CopyOnWriteArrayList<>();

        /** The calls that ran, read through the proxy (a proxy's own fields are empty). */
        List<String> ran() {
            return ran;
        }

        @RateLimited(value = "reports", key = "#tenantId")
        public String daily(String tenantId, int day) {
            ran.add("daily " + tenantId + " " + day);
            return "daily of " + tenantId;
        }

        @RateLimited(value = "reports", key = "#p1")
        public String byPosition(String ignored, String tenantId) {
            ran.add("byPosition " + tenantId);
            return tenantId;
        }

        @RateLimited(value = "reports", key = "'exports'", permits = 2)
        public void export() {
            ran.add("export");
        }

        @RateLimited(value = "reports", key = "#tenantId")
        public String nullable(String tenantId) {
            ran.add("nullable");
            return tenantId;
        }

        @RateLimited(value = "sessions")
        public void session(Runnable during) {
            during.run();
        }

        @RateLimited(value = "sessions")
        public CompletableFuture<String> sessionUntil(CompletableFuture<String> done) {
            return done;
        }

        public String unlimited() {
            ran.add("unlimited");
            return "free";
        }
    }

    /** Every public method limited by the class's annotation, under one shared key. */
    @RateLimited("reports")
    static class Archive {
        private final List<String> ran = new CopyOnWriteArrayList<>();

        /** The calls that ran, read through the proxy (a proxy's own fields are empty). */
        List<String> ran() {
            return ran;
        }

        public void store() {
            ran.add("store");
        }

        public void fetch() {
            ran.add("fetch");
        }

        @RateLimited(value = "reports", key = "'own'")
        public void purge() {
            ran.add("purge");
        }

        @Override
        public String toString() {
            return "Archive";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        Archive archive() {
            return new Archive();
        }

        @Bean
        ConcurrencyLimiter sessions(Sluice sluice) {
            return sluice.concurrencyLimiter("sessions", ConcurrencyLimit.of(1, Duration.ofMinutes(1)));
        }
    }

    @Test
    void runsTheMethodWhileTheKeyFromItsParameterNameHasPermitsThenThrowsWithoutRunningIt() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);

            assertThat(reports.daily("acme", 1)).isEqualTo("daily of acme");
            assertThat(reports.daily("acme", 2)).isEqualTo("daily of acme");
            assertThatThrownBy(() -> reports.daily("acme", 3))
                    .isInstanceOfSatisfying(RateLimitedException.class, denied -> {
                        assertThat(denied.limiter()).isEqualTo("reports");
                        assertThat(denied.key()).isEqualTo("acme");
                        assertThat(denied.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1));
                        assertThat(denied.decision().basis()).isEqualTo(Decision.Basis.LIMIT);
                        assertThat(denied)
                                .hasMessage("limiter 'reports' denied key 'acme'; retry after "
                                        + DurationText.format(denied.retryAfter()));
                    });
            assertThat(reports.daily("globex", 4)).isEqualTo("daily of globex");

            assertThat(reports.ran()).containsExactly("daily acme 1", "daily acme 2", "daily globex 4");
        });
    }

    @Test
    void takesTheKeyByPositionOrAsAConstantAndTheAnnotationsPermits() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);
            RateLimiter limiter = context.getBean(SluiceRegistry.class).limiter("reports", RateLimiter.class);

            reports.byPosition("x", "initech");
            assertThat(limiter.available("initech")).isEqualTo(1);
            assertThat(limiter.available("x")).isEqualTo(2);

            reports.export();
            assertThat(limiter.available("exports")).isZero();
            assertThatThrownBy(reports::export).isInstanceOf(RateLimitedException.class);
            assertThat(reports.ran()).containsExactly("byPosition initech", "export");
        });
    }

    @Test
    void refusesANullKeyWithoutRunningTheMethod() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);

            assertThatThrownBy(() -> reports.nullable(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("@RateLimited(\"reports\") on RateLimitedTest.Reports.nullable(String): key"
                            + " '#tenantId' is null for this call; a key needs a value");
            assertThat(reports.ran()).isEmpty();
        });
    }

    @Test
    void limitsEveryPublicMethodOfAnAnnotatedClassUnderOneSharedKeyButNotObjectsMethods() {
        runner.run(context -> {
            Archive archive = context.getBean(Archive.class);
            RateLimiter limiter = context.getBean(SluiceRegistry.class).limiter("reports", RateLimiter.class);

            archive.store();
            archive.fetch();
            assertThatThrownBy(archive::store)
                    .isInstanceOfSatisfying(
                            RateLimitedException.class,
                            denied -> assertThat(denied.key()).isEqualTo(RateLimited.SHARED_KEY));
            archive.purge();
            assertThat(archive.toString()).isEqualTo("Archive");

            assertThat(archive.ran()).containsExactly("store", "fetch", "purge");
            assertThat(limiter.available("own")).isEqualTo(1);
        });
    }

    @Test
    void leavesBeansWithoutTheAnnotationUnproxiedAndUnannotatedMethodsFree() {
        runner.run(context -> {
            assertThat(AopUtils.isAopProxy(context.getBean(Reports.class))).isTrue();
            assertThat(AopUtils.isAopProxy(context.getBean(Beans.class))).isFalse();
            Reports reports = context.getBean(Reports.class);
            for (int i = 0; i < 5; i++) {
                assertThat(reports.unlimited()).isEqualTo("free");
            }
        });
    }

    @Test
    void holdsAConcurrencyLimitersLeaseWhileTheMethodRunsFromALimiterBean() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);
            AtomicReference<Throwable> inside = new AtomicReference<>();

            reports.session(() -> {
                try {
                    reports.session(() -> {});
                } catch (RateLimitedException e) {
                    inside.set(e);
                }
            });

            assertThat(inside.get()).isInstanceOf(RateLimitedException.class);
            reports.session(() -> {});
        });
    }

    @Test
    void holdsTheLeaseOfAMethodReturningAFutureUntilTheFutureCompletes() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);
            CompletableFuture<String> pending = new CompletableFuture<>();

            CompletableFuture<String> returned = reports.sessionUntil(pending);

            assertThat(returned).isSameAs(pending);
            assertThatThrownBy(() -> reports.session(() -> {}))
                    .as("the lease is held while the returned future is pending")
                    .isInstanceOf(RateLimitedException.class);
            pending.complete("done");
            reports.session(() -> {});

            CompletableFuture<String> failing = new CompletableFuture<>();
            reports.sessionUntil(failing);
            failing.completeExceptionally(new IllegalStateException("downstream failed"));
            reports.session(() -> {});
        });
    }

    @Test
    void releasesTheLeaseOfAMethodThatThrows() {
        runner.run(context -> {
            Reports reports = context.getBean(Reports.class);

            assertThatThrownBy(() -> reports.session(() -> {
                        throw new IllegalStateException("boom");
                    }))
                    .hasMessage("boom");
            reports.session(() -> {});
        });
    }

    @Test
    void appliesNothingWhenAnnotationsAreOff() {
        runner.withPropertyValues("sluice.annotations.enabled=false").run(context -> {
            Reports reports = context.getBean(Reports.class);
            assertThat(AopUtils.isAopProxy(reports)).isFalse();
            for (int i = 0; i < 3; i++) {
                reports.export();
            }
        });
    }

    @Test
    void stopsTheStartNamingEachMethodWhoseLimiterDoesNotExist() {
        FailureAnalysis analysis =
                SluiceFailureAnalyzerTest.analysisOf(runner.withUserConfiguration(MisnamedBean.class));

        assertThat(analysis.getDescription())
                .isEqualTo("Sluice cannot apply @RateLimited(\"report\") on RateLimitedTest.Misnamed.run(): no limiter"
                        + " 'report' is declared under sluice.limiters, and no bean of that name is a"
                        + " Limiter<String>.");
        assertThat(analysis.getAction())
                .isEqualTo("Declare 'sluice.limiters.report' (declared: reports), or define a limiter bean named"
                        + " 'report'.");
    }

    @Test
    void stopsTheStartNamingAKeyThatIsNotAnExpressionAndPermitsAboveTheLimit() {
        FailureAnalysis analysis =
                SluiceFailureAnalyzerTest.analysisOf(runner.withUserConfiguration(MalformedBean.class));

        assertThat(analysis.getDescription())
                .contains("@RateLimited(\"reports\") on RateLimitedTest.Malformed.greedy(): permits = 3 is out of"
                        + " range.")
                .contains("@RateLimited(\"reports\") on RateLimitedTest.Malformed.unparsable(String): key '#id +'"
                        + " is not a SpEL expression");
        assertThat(analysis.getAction()).contains("Set permits to 1 to 2.");
    }

    @Test
    void followsTheLimitersWhenUnavailableWhileRedisIsDown() {
        try (RedisServer redis = RedisServer.start()) {
            runner.withUserConfiguration(GuardedBean.class)
                    .withPropertyValues(
                            "sluice.redis.url=" + redis.uri(),
                            "sluice.redis.command-timeout=200ms",
                            "sluice.limiters.lenient.policy=fixed-window",
                            "sluice.limiters.lenient.limit=1",
                            "sluice.limiters.lenient.window=1h",
                            "sluice.limiters.lenient.when-unavailable=fail-open",
                            "sluice.limiters.strict.policy=fixed-window",
                            "sluice.limiters.strict.limit=1",
                            "sluice.limiters.strict.window=1h")
                    .run(context -> {
                        Guarded guarded = context.getBean(Guarded.class);
                        guarded.lenient();
                        guarded.strict();
                        assertThatThrownBy(guarded::lenient).isInstanceOf(RateLimitedException.class);

                        redis.kill();

                        await().atMost(Duration.ofSeconds(20))
                                .untilAsserted(() -> assertThatThrownBy(guarded::strict)
                                        .isInstanceOfSatisfying(
                                                RateLimitedException.class,
                                                denied -> assertThat(denied.decision()
                                                                .basis())
                                                        .isEqualTo(Decision.Basis.UNAVAILABLE_DENIED)));
                        guarded.lenient();
                        guarded.lenient();
                        assertThat(guarded.ran()).containsExactly("lenient", "strict", "lenient", "lenient");
                    });
        }
    }

    static class Misnamed {
        @RateLimited("report")
        public void run() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class MisnamedBean {
        @Bean
        Misnamed misnamed() {
            return new Misnamed();
        }
    }

    static class Malformed {
        @RateLimited(value = "reports", permits = 3)
        public void greedy() {}

        @RateLimited(value = "reports", key = "#id +")
        public void unparsable(String id) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class MalformedBean {
        @Bean
        Malformed malformed() {
            return new Malformed();
        }
    }

    static class Guarded {
        private final List<String> ran = new CopyOnWriteArrayList<>();

        /** The calls that ran, read through the proxy (a proxy's own fields are empty). */
        List<String> ran() {
            return ran;
        }

        @RateLimited("lenient")
        public void lenient() {
            ran.add("lenient");
        }

        @RateLimited("strict")
        public void strict() {
            ran.add("strict");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GuardedBean {
        @Bean
        Guarded guarded() {
            return new Guarded();
        }
    }
}
