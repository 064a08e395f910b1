package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.RateLimiter;
import dev.sluice.server.SluiceApiServlet;
import dev.sluice.server.SluiceDashboardServlet;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * When the API and the dashboard are mounted, where, with which tokens and limits, and how a bad {@code
 * sluice.dashboard.*} property is refused. Over real HTTP: {@link DashboardApplicationContract}.
 */
class SluiceDashboardAutoConfigurationTest {
    private static final AutoConfigurations ALL = AutoConfigurations.of(
            SluiceAutoConfiguration.class,
            SluiceHttpAutoConfiguration.class,
            SluiceMetricsAutoConfiguration.class,
            SluiceDashboardAutoConfiguration.class);
    private static final String SECRET = "correct-horse-battery-staple";

    private final WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(ALL);

    @Test
    void mountsNothingUnlessEnabled() {
        web.run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean("sluiceApiServlet")
                .doesNotHaveBean("sluiceDashboardServlet")
                .doesNotHaveBean("sluiceDashboardRedirect"));
        web.withPropertyValues("sluice.dashboard.enabled=false", "sluice.dashboard.tokens[0].name=ops")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("sluiceApiServlet"));
    }

    @Test
    void mountsTheApiAsyncSupportedAndTheDashboardBesideItAtSluiceByDefault() {
        web.withPropertyValues("sluice.dashboard.enabled=true").run(context -> {
            ServletRegistrationBean<?> api = registration(context, "sluiceApiServlet");
            assertThat(api.getServlet()).isInstanceOf(SluiceApiServlet.class);
            assertThat(api.getUrlMappings()).containsExactly("/sluice/*");
            assertThat(api.isAsyncSupported()).isTrue();
            assertThat(((SluiceApiServlet) api.getServlet()).isOpen()).isTrue();
            ServletRegistrationBean<?> dashboard = registration(context, "sluiceDashboardServlet");
            assertThat(dashboard.getServlet()).isInstanceOf(SluiceDashboardServlet.class);
            assertThat(dashboard.getUrlMappings()).containsExactly("/sluice/dashboard/*");
            assertThat(registration(context, "sluiceDashboardRedirect").getUrlMappings())
                    .containsExactly("/sluice", "/sluice/");
        });
    }

    @Test
    void mountsBelowTheConfiguredPath() {
        web.withPropertyValues("sluice.dashboard.enabled=true", "sluice.dashboard.path=/ops/jobs")
                .run(context -> {
                    assertThat(registration(context, "sluiceApiServlet").getUrlMappings())
                            .containsExactly("/ops/jobs/*");
                    assertThat(registration(context, "sluiceDashboardServlet").getUrlMappings())
                            .containsExactly("/ops/jobs/dashboard/*");
                });
    }

    @Test
    void mountsNothingOutsideAServletWebApplicationOrWithoutSluiceServer() {
        new ApplicationContextRunner()
                .withConfiguration(ALL)
                .withPropertyValues("sluice.dashboard.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("sluiceApiServlet"));
        web.withClassLoader(new FilteredClassLoader(SluiceApiServlet.class))
                .withPropertyValues("sluice.dashboard.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("sluiceApiServlet"));
    }

    @Test
    void anApplicationsOwnRegistrationReplacesTheStartersAndTheOthersStay() {
        web.withPropertyValues("sluice.dashboard.enabled=true")
                .withUserConfiguration(OwnRegistration.class)
                .run(context -> {
                    assertThat(registration(context, "sluiceApiServlet").getUrlMappings())
                            .containsExactly("/internal/sluice/*");
                    assertThat(context).hasBean("sluiceDashboardServlet");
                });
    }

    @Test
    void servesTheDeclaredLimitersAndTheApplicationsLimiterAndChainBeans() {
        web.withPropertyValues(
                        "sluice.dashboard.enabled=true",
                        "sluice.limiters.api.policy=fixed-window",
                        "sluice.limiters.api.limit=5",
                        "sluice.limiters.api.window=1m")
                .withUserConfiguration(OwnLimits.class)
                .run(context -> {
                    MockHttpServletResponse response =
                            call(registration(context, "sluiceApiServlet"), "GET", "/api/v1/limiters", null);
                    assertThat(response.getStatus()).isEqualTo(200);
                    Map<String, String> kinds = new TreeMap<>();
                    for (JsonNode limiter : JsonMapper.builder()
                            .build()
                            .readTree(response.getContentAsString())
                            .get("limiters")) {
                        kinds.put(
                                limiter.get("name").asString(),
                                limiter.get("kind").asString());
                    }
                    assertThat(kinds).isEqualTo(Map.of("api", "limiter", "own", "limiter", "checkout", "chain"));
                });
    }

    @Test
    void refusesALimiterBeanOfAnotherEngineNamedLikeADeclaredLimiter() {
        try (Sluice other = Sluice.inMemory()) {
            web.withPropertyValues(
                            "sluice.dashboard.enabled=true",
                            "sluice.limiters.api.policy=fixed-window",
                            "sluice.limiters.api.limit=5",
                            "sluice.limiters.api.window=1m")
                    .withBean(
                            "elsewhere",
                            RateLimiter.class,
                            () -> other.limiter("api", FixedWindow.of(5, Duration.ofMinutes(1))))
                    .run(context -> assertThat(context)
                            .getFailure()
                            .rootCause()
                            .hasMessageContaining("cannot serve the NamedLimiter bean 'elsewhere'")
                            .hasMessageContaining("another limiter is named 'api'"));
        }
    }

    @Test
    void refusesAPathItCannotMountBelowNamingThePathsAllowed() {
        for (String path : new String[] {"/", "sluice", "/sluice/", "/sluice/*", "/a b"}) {
            FailureAnalysis analysis = analysisOf("sluice.dashboard.enabled=true", "sluice.dashboard.path=" + path);
            assertThat(analysis.getDescription())
                    .as(path)
                    .isEqualTo("Invalid Sluice configuration: property 'sluice.dashboard.path' has the value '" + path
                            + "': is not a path the API and the dashboard can be mounted below.");
            assertThat(analysis.getAction()).startsWith("Set 'sluice.dashboard.path' to a path such as /sluice");
        }
    }

    @Test
    void refusesAShortSecretNamingTheTokenWithoutShowingTheSecret() {
        FailureAnalysis analysis = analysisOf(
                "sluice.dashboard.enabled=true",
                "sluice.dashboard.tokens[0].name=ops",
                "sluice.dashboard.tokens[0].secret=short-secret",
                "sluice.dashboard.tokens[0].scope=admin");

        assertThat(analysis.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.dashboard.tokens[0]' has the value 'name"
                        + " ops, scope admin, secret not shown': the secret of token 'ops' must be at least 16"
                        + " characters (not shown).");
        assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain("short-secret");
    }

    @Test
    void refusesAnUnknownScopeAndAMissingSecretNamingWhatIsAllowed() {
        FailureAnalysis scope = analysisOf(
                "sluice.dashboard.enabled=true",
                "sluice.dashboard.tokens[0].name=ops",
                "sluice.dashboard.tokens[0].secret=" + SECRET,
                "sluice.dashboard.tokens[0].scope=write");
        assertThat(scope.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.dashboard.tokens[0].scope' has the value"
                        + " 'write': is not a scope.");
        assertThat(scope.getAction()).isEqualTo("Set 'sluice.dashboard.tokens[0].scope' to read, operate or admin.");

        FailureAnalysis secret = analysisOf(
                "sluice.dashboard.enabled=true",
                "sluice.dashboard.tokens[0].name=ops",
                "sluice.dashboard.tokens[0].scope=read");
        assertThat(secret.getDescription())
                .isEqualTo("Invalid Sluice configuration: property 'sluice.dashboard.tokens[0].secret' is missing:"
                        + " each token needs it.");
    }

    @Test
    void refusesAnonymousReadWithoutTokensAndAnAnonymousScopeOtherThanNoneOrRead() {
        FailureAnalysis withoutTokens = analysisOf("sluice.dashboard.enabled=true", "sluice.dashboard.anonymous=read");
        assertThat(withoutTokens.getDescription())
                .contains("'sluice.dashboard.anonymous' has the value 'read': it applies only while tokens are set");
        assertThat(withoutTokens.getAction()).contains("sluice.dashboard.tokens");

        FailureAnalysis admin = analysisOf(
                "sluice.dashboard.enabled=true",
                "sluice.dashboard.anonymous=admin",
                "sluice.dashboard.tokens[0].name=ops",
                "sluice.dashboard.tokens[0].secret=" + SECRET,
                "sluice.dashboard.tokens[0].scope=admin");
        assertThat(admin.getAction()).isEqualTo("Set 'sluice.dashboard.anonymous' to none (the default) or read.");
    }

    @Test
    void aMisspelledKeyUnderTokensIsNamedButItsValueIsNotShown() {
        FailureAnalysis analysis = analysisOf(
                "sluice.dashboard.enabled=true",
                "sluice.dashboard.tokens[0].name=ops",
                "sluice.dashboard.tokens[0].secrit=" + SECRET,
                "sluice.dashboard.tokens[0].scope=admin");

        assertThat(analysis.getDescription())
                .startsWith("Invalid Sluice configuration: property 'sluice.dashboard.tokens[0].secrit' has the"
                        + " value '(not shown)'");
        assertThat(analysis.getAction()).contains("Did you mean 'sluice.dashboard.tokens[0].secret'?");
        assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain(SECRET);
    }

    @Test
    void asksForATokenOfTheScopeARouteNeedsWhenTokensAreSet() {
        web.withPropertyValues(
                        "sluice.dashboard.enabled=true",
                        "sluice.dashboard.anonymous=read",
                        "sluice.dashboard.tokens[0].name=ops",
                        "sluice.dashboard.tokens[0].secret=" + SECRET,
                        "sluice.dashboard.tokens[0].scope=operate")
                .run(context -> {
                    ServletRegistrationBean<?> api = registration(context, "sluiceApiServlet");
                    assertThat(((SluiceApiServlet) api.getServlet()).isOpen()).isFalse();
                    assertThat(call(api, "GET", "/api/v1/session", null).getContentAsString())
                            .contains("\"scope\":\"read\"");
                    assertThat(call(api, "GET", "/api/v1/session", SECRET).getContentAsString())
                            .contains("\"name\":\"ops\"", "\"scope\":\"operate\"");
                });
    }

    /** The registration bean called {@code name}. */
    private static ServletRegistrationBean<?> registration(ApplicationContext context, String name) {
        return context.getBean(name, ServletRegistrationBean.class);
    }

    private static MockHttpServletResponse call(
            ServletRegistrationBean<?> api, String method, String path, String token) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest(method, "/sluice" + path);
        request.setServletPath("/sluice");
        request.setPathInfo(path);
        if (token != null) {
            request.addHeader("Authorization", "Bearer " + token);
        }
        MockHttpServletResponse response = new MockHttpServletResponse();
        api.getServlet().service(request, response);
        return response;
    }

    private FailureAnalysis analysisOf(String... properties) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        web.withPropertyValues(properties).run(context -> failure.set(context.getStartupFailure()));
        assertThat(failure.get()).as("startup failure").isNotNull();
        FailureAnalysis analysis = new SluiceFailureAnalyzer().analyze(failure.get());
        assertThat(analysis).as("analysis of %s", failure.get()).isNotNull();
        return analysis;
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistration {
        @Bean
        ServletRegistrationBean<SluiceApiServlet> sluiceApiServlet(Sluice sluice) {
            return new ServletRegistrationBean<>(new SluiceApiServlet(sluice), "/internal/sluice/*");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLimits {
        @Bean
        RateLimiter ownLimiter(Sluice sluice) {
            return sluice.limiter("own", FixedWindow.of(10, Duration.ofMinutes(1)));
        }

        @Bean
        LimitChain<String> checkout(Sluice sluice, RateLimiter ownLimiter) {
            return sluice.<String>chain().layer(ownLimiter, key -> key).build();
        }
    }
}
