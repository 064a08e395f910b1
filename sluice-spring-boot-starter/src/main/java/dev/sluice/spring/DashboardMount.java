package dev.sluice.spring;

import dev.sluice.limit.LimitChain;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.server.ApiTokens;
import dev.sluice.server.Scope;
import dev.sluice.server.SluiceApiServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.ResolvableType;

/**
 * What {@link SluiceDashboardAutoConfiguration} makes of {@code sluice.dashboard.*}: the path checked, the tokens,
 * the limiters and chains the API serves, the redirect to the dashboard, and the end of its event streams at
 * shutdown.
 */
final class DashboardMount {
    private static final String PATH_PROPERTY = "sluice.dashboard.path";
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");
    private static final String SCOPES = "read, operate or admin";

    private DashboardMount() {}

    /**
     * {@code path} if it is one the servlets can be mounted below.
     *
     * @throws SluicePropertyException naming {@code sluice.dashboard.path} and the paths allowed, if it is not
     */
    static String path(String path) {
        if (path == null || !PATH.matcher(path).matches()) {
            throw new SluicePropertyException(
                    PATH_PROPERTY,
                    path,
                    "is not a path the API and the dashboard can be mounted below",
                    "a path such as /sluice or /admin/jobs: '/' and a segment of letters, digits, '.', '_', '~' or"
                            + " '-', as many times as needed, without a trailing '/', wildcards or the root alone");
        }
        return path;
    }

    /**
     * The tokens of {@code sluice.dashboard.tokens}, and what a request without one may do.
     *
     * @return {@link ApiTokens#none()} if no token is set
     * @throws SluicePropertyException naming the property, never a secret, if a token or {@code anonymous} is
     *     malformed
     */
    static ApiTokens tokens(SluiceProperties.Dashboard dashboard) {
        String anonymous = dashboard.anonymous() == null
                ? "none"
                : dashboard.anonymous().strip().toLowerCase(Locale.ROOT);
        if (!List.of("none", "read").contains(anonymous)) {
            throw new SluicePropertyException(
                    "sluice.dashboard.anonymous",
                    dashboard.anonymous(),
                    "is not what a request without a token may do",
                    "none (the default) or read");
        }
        if (dashboard.tokens().isEmpty()) {
            if (anonymous.equals("read")) {
                throw SluicePropertyException.withAction(
                        "sluice.dashboard.anonymous",
                        dashboard.anonymous(),
                        "it applies only while tokens are set, and none is: every request may do everything",
                        "Set tokens under 'sluice.dashboard.tokens', or remove 'sluice.dashboard.anonymous'.");
            }
            return ApiTokens.none();
        }
        ApiTokens.Builder tokens = ApiTokens.builder().anonymous(anonymous.equals("read") ? Scope.READ : null);
        for (int i = 0; i < dashboard.tokens().size(); i++) {
            SluiceProperties.Token token = dashboard.tokens().get(i);
            String prefix = "sluice.dashboard.tokens[" + i + "]";
            required(prefix + ".name", token.name(), "1 to 64 letters, digits, '.', '_', ':' or '-'");
            required(prefix + ".secret", token.secret(), "a secret of at least 16 characters, ideally ${AN_ENV_VAR}");
            required(prefix + ".scope", token.scope(), SCOPES);
            Scope scope;
            try {
                scope = Scope.named(token.scope());
            } catch (IllegalArgumentException e) {
                throw new SluicePropertyException(prefix + ".scope", token.scope(), "is not a scope", SCOPES);
            }
            try {
                tokens.token(token.name(), token.secret(), scope);
            } catch (IllegalArgumentException e) { // its message never holds the secret
                throw SluicePropertyException.withAction(
                        prefix,
                        "name " + token.name() + ", scope " + scope + ", secret not shown",
                        e.getMessage(),
                        "Correct '" + prefix + "' so that it meets the condition above.");
            }
        }
        return tokens.build();
    }

    private static void required(String property, String value, String allowed) {
        if (value == null || value.isBlank()) {
            throw new SluicePropertyException(property, null, "each token needs it", allowed);
        }
    }

    /**
     * Gives {@code api} the limiters of {@code registry}, the application's {@link NamedLimiter} beans under their
     * own names, and its {@code LimitChain<String>} beans under their bean names.
     *
     * @throws IllegalStateException if a limiter bean has the name of another limiter, or a chain bean's name is
     *     malformed or taken
     */
    @SuppressWarnings("unchecked")
    static void limits(SluiceApiServlet.Builder api, SluiceRegistry registry, ListableBeanFactory beans) {
        Map<String, NamedLimiter> limiters = new TreeMap<>(registry.limiters());
        new TreeMap<>(beans.getBeansOfType(NamedLimiter.class)).forEach((bean, limiter) -> {
            NamedLimiter known = limiters.putIfAbsent(limiter.name(), limiter);
            if (known != null && known != limiter) {
                throw new IllegalStateException("Sluice's API cannot serve the NamedLimiter bean '" + bean
                        + "': another limiter is named '" + limiter.name() + "' (declared under sluice.limiters, or"
                        + " another bean); give each limiter a name of its own");
            }
        });
        limiters.values().forEach(api::limiter);
        ResolvableType chainOfStrings = ResolvableType.forClassWithGenerics(LimitChain.class, String.class);
        for (String bean : beans.getBeanNamesForType(chainOfStrings)) {
            try {
                api.chain(bean, (LimitChain<String>) beans.getBean(bean));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        "Sluice's API serves each LimitChain<String> bean under its bean name, and cannot serve '"
                                + bean + "': " + e.getMessage() + "; rename the bean",
                        e);
            }
        }
    }

    /** Sends {@code PATH} and {@code PATH/} to the dashboard at {@code PATH/dashboard/}. */
    static final class Redirect extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final String path;

        Redirect(String path) {
            this.path = path;
        }

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.sendRedirect(request.getContextPath() + path + "/dashboard/");
        }
    }

    /**
     * Closes the API's dashboard streams, and the workers in other languages it bridges, when the context stops:
     * in a phase before the web server's graceful shutdown, which would otherwise wait for every open dashboard's
     * event stream until its timeout. The container's own {@code destroy} of the servlet afterwards does nothing
     * more.
     */
    static final class Streams implements SmartLifecycle {
        private final ObjectProvider<ServletRegistrationBean<SluiceApiServlet>> api;
        private volatile boolean running;

        Streams(ObjectProvider<ServletRegistrationBean<SluiceApiServlet>> api) {
            this.api = api;
        }

        @Override
        public void start() {
            running = true;
        }

        @Override
        public void stop() {
            running = false;
            api.orderedStream()
                    .forEach(registration -> registration.getServlet().destroy());
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        /** The latest phase, so that it stops first: before the graceful shutdown of the web server. */
        @Override
        public int getPhase() {
            return DEFAULT_PHASE;
        }
    }
}
