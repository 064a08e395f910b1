package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.server.ApiTokens;
import dev.sluice.server.SluiceApiServlet;
import dev.sluice.server.SluiceDashboardServlet;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * Sluice's HTTP API ({@link SluiceApiServlet}) at {@code PATH/*} and its live dashboard ({@link
 * SluiceDashboardServlet}) at {@code PATH/dashboard/}, mounted in the servlet container of a servlet web
 * application that has {@code sluice-server}, over the application's {@link Sluice} bean, when {@code
 * sluice.dashboard.enabled} is true (it is off unless set); {@code PATH} is {@code sluice.dashboard.path}, {@code
 * /sluice} unless set, and {@code PATH} and {@code PATH/} lead to the dashboard.
 *
 * <p>The API serves the limiters of the {@link SluiceRegistry} and the application's own {@code NamedLimiter}
 * beans under their names, the application's {@code LimitChain<String>} beans under their bean names, and {@code
 * /metrics} from the application's Prometheus registry if it has one. Without {@code sluice.dashboard.tokens} every
 * request that reaches the path may do everything, and the application's own security (Spring Security, a filter)
 * is what guards it; with tokens, each request needs one of the scope its route needs. Open dashboards do not hold
 * the application's shutdown: their event streams end before the web server's graceful shutdown waits for requests
 * in progress.
 *
 * <p>An application's own bean named {@code sluiceApiServlet}, {@code sluiceDashboardServlet} or {@code
 * sluiceDashboardRedirect} replaces that registration.
 */
@AutoConfiguration(after = {SluiceAutoConfiguration.class, SluiceMetricsAutoConfiguration.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(
        name = {"dev.sluice.server.SluiceApiServlet", "jakarta.servlet.http.HttpServlet"},
        value = ServletRegistrationBean.class)
@ConditionalOnBooleanProperty(name = "sluice.dashboard.enabled")
public final class SluiceDashboardAutoConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceDashboardAutoConfiguration.class);

    SluiceDashboardAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(name = "sluiceApiServlet")
    ServletRegistrationBean<SluiceApiServlet> sluiceApiServlet(
            Sluice sluice,
            SluiceRegistry registry,
            SluiceProperties properties,
            ObjectProvider<PrometheusMeterRegistry> prometheus,
            ListableBeanFactory beans) {
        SluiceProperties.Dashboard dashboard = properties.dashboard();
        String path = DashboardMount.path(dashboard.path());
        ApiTokens tokens = DashboardMount.tokens(dashboard);
        SluiceApiServlet.Builder api = SluiceApiServlet.builder(sluice).tokens(tokens);
        DashboardMount.limits(api, registry, beans);
        prometheus.ifUnique(api::prometheus);
        ServletRegistrationBean<SluiceApiServlet> registration =
                new ServletRegistrationBean<>(api.build(), path + "/*");
        registration.setName("sluiceApiServlet");
        registration.setAsyncSupported(true); // the dashboard's server-sent events
        if (tokens.isOpen() && !beans.containsBean("springSecurityFilterChain")) {
            LOG.warn(
                    "Sluice's API at {}/ has no tokens and this application has no Spring Security filter chain:"
                            + " every request that reaches {}/ may change and remove every queue unless a filter of"
                            + " the application guards it; set sluice.dashboard.tokens to ask for tokens",
                    path,
                    path);
        } else {
            LOG.info(
                    "Sluice's API at {}/ and its dashboard at {}/dashboard/ ({})",
                    path,
                    path,
                    tokens.isOpen() ? "no tokens: the application's security guards them" : tokens);
        }
        return registration;
    }

    @Bean
    @ConditionalOnMissingBean(name = "sluiceDashboardServlet")
    ServletRegistrationBean<SluiceDashboardServlet> sluiceDashboardServlet(SluiceProperties properties) {
        String path = DashboardMount.path(properties.dashboard().path());
        ServletRegistrationBean<SluiceDashboardServlet> registration =
                new ServletRegistrationBean<>(new SluiceDashboardServlet(), path + "/dashboard/*");
        registration.setName("sluiceDashboardServlet");
        return registration;
    }

    @Bean
    @ConditionalOnMissingBean(name = "sluiceDashboardRedirect")
    ServletRegistrationBean<DashboardMount.Redirect> sluiceDashboardRedirect(SluiceProperties properties) {
        String path = DashboardMount.path(properties.dashboard().path());
        ServletRegistrationBean<DashboardMount.Redirect> registration =
                new ServletRegistrationBean<>(new DashboardMount.Redirect(path), path, path + "/");
        registration.setName("sluiceDashboardRedirect");
        return registration;
    }

    /** Ends the dashboard's event streams before the web server's graceful shutdown waits for open requests. */
    @Bean
    DashboardMount.Streams sluiceDashboardStreams(ObjectProvider<ServletRegistrationBean<SluiceApiServlet>> api) {
        return new DashboardMount.Streams(api);
    }
}
