package dev.sluice.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.server.ApiTokens.Caller;
import dev.sluice.server.internal.Access;
import dev.sluice.server.internal.DashboardFeed;
import dev.sluice.server.internal.DashboardRoutes;
import dev.sluice.server.internal.EngineSection;
import dev.sluice.server.internal.LimiterRoutes;
import dev.sluice.server.internal.LimiterTally;
import dev.sluice.server.internal.Problem;
import dev.sluice.server.internal.QueueRoutes;
import dev.sluice.server.internal.RedisSection;
import dev.sluice.server.internal.WorkerRoutes;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's HTTP API, version 1, as a servlet: JSON over the queues of one engine, to mount at any path of a servlet
 * container (its routes are below that path: {@code /api/v1/queues}, {@code /api/v1/limiters}, {@code
 * /api/v1/dashboard} for {@link SluiceDashboardServlet}'s live snapshots, {@code /health/live}, {@code
 * /health/ready}, and {@code /metrics} when given a registry); {@link #builder(Sluice)} gives it tokens, named
 * limiters and chains to serve. The dashboard's event stream needs the servlet to be async-supported.
 * {@link SluiceServer} runs it on a Jetty server of its own. Refusals are RFC 9457 problem details ({@code
 * application/problem+json}) with a stable {@code type} per kind of problem; a refused request changes nothing.
 * Reads never create a queue: a name the engine does not hold is a 404.
 *
 * <p>With {@link ApiTokens}, each request needs a token whose {@link Scope} allows it (reads: {@code read}; changes:
 * {@code operate}; removing many jobs or a queue: {@code admin}); every change is logged with the token's name.
 * Changes sent by pages of another origin are refused whatever their credentials.
 */
public final class SluiceApiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SluiceApiServlet.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The engine; not serialized with the servlet (containers do not serialize servlets in practice). */
    private final transient Sluice sluice;

    private final transient QueueRoutes queues;

    private final transient LimiterRoutes limiters;

    private final transient Access access;

    private final transient PrometheusMeterRegistry prometheus;
    private final transient DashboardFeed dashboardFeed;

    private final transient LimiterTally limiterTally;

    /**
     * The API over {@code sluice} without authentication ({@link ApiTokens#none()}), which the caller keeps open while
     * the servlet serves and closes afterwards. Mount it where only trusted callers reach it, or behind the host
     * application's own security.
     *
     * @param sluice the engine whose queues it serves
     * @throws IllegalArgumentException if {@code sluice} is null
     */
    public SluiceApiServlet(Sluice sluice) {
        this(builder(sluice));
    }

    private SluiceApiServlet(Builder builder) {
        this.sluice = builder.sluice;
        this.queues = new QueueRoutes(builder.sluice, builder.redaction);
        this.limiters = new LimiterRoutes(builder.sluice.clock(), builder.limiters, builder.chains);
        this.access = new Access(builder.tokens, System::nanoTime);
        this.prometheus = builder.prometheus;
        List<EngineSection> sections = RedisSection.of(builder.sluice);
        this.limiterTally = new LimiterTally(builder.sluice);
        this.dashboardFeed = new DashboardFeed(builder.sluice, sections, limiterTally, System::nanoTime);
    }

    /**
     * A builder of the API over {@code sluice}, which the caller keeps open while the servlet serves.
     *
     * @param sluice the engine whose queues the API serves
     * @return a builder: no authentication until {@link Builder#tokens} says otherwise
     * @throws IllegalArgumentException if {@code sluice} is null
     */
    public static Builder builder(Sluice sluice) {
        if (sluice == null) {
            throw new IllegalArgumentException("sluice must not be null");
        }
        return new Builder(sluice);
    }

    /**
     * Whether the API asks for no token ({@link ApiTokens#none()}).
     *
     * @return true if every request may do everything
     */
    public boolean isOpen() {
        return access.isOpen();
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        readContent(request);
        List<String> path = segments(request.getPathInfo());
        Optional<Caller> caller = Optional.empty();
        try {
            if (path.size() == 2 && path.get(0).equals("health")) {
                if (!request.getMethod().equals("GET")) {
                    throw new Problem(
                            Problem.Kind.METHOD_NOT_ALLOWED,
                            request.getMethod() + " is not allowed on /health/" + path.get(1) + " (GET)");
                }
                health(path.get(1), response);
            } else if (path.equals(List.of("api", "v1", "openapi.yaml"))) {
                openApi(request.getMethod(), response);
            } else if (path.equals(List.of("metrics"))) {
                caller = access.caller(request);
                Access.check(caller, Scope.READ, "GET /metrics");
                metrics(request.getMethod(), response);
            } else if (path.size() >= 3 && path.subList(0, 3).equals(List.of("api", "v1", "limiters"))) {
                Access.refuseOtherOrigins(request);
                caller = access.caller(request);
                List<String> route = path.subList(2, path.size());
                String what = request.getMethod() + " /api/v1/" + String.join("/", route);
                Access.check(caller, Access.needed(request.getMethod(), route), what);
                LimiterRoutes.Answer answer = limiters.serve(request.getMethod(), route, () -> body(request));
                answer.headers().forEach(response::setHeader);
                write(response, answer.status(), "application/json", answer.body());
            } else if (path.size() >= 3 && path.subList(0, 3).equals(List.of("api", "v1", "dashboard"))) {
                caller = access.caller(request);
                Access.check(caller, Scope.READ, request.getMethod() + " " + request.getRequestURI());
                new DashboardRoutes(dashboardFeed).serve(request, response, path.subList(3, path.size()));
            } else if (path.size() >= 2
                    && path.get(0).equals("api")
                    && path.get(1).equals("v1")) {
                List<String> route = path.subList(2, path.size());
                Access.refuseOtherOrigins(request);
                caller = access.caller(request);
                if (route.equals(List.of("session"))) {
                    session(request, response, caller);
                    return;
                }
                String what = request.getMethod() + " /api/v1/" + String.join("/", route);
                Access.check(caller, Access.needed(request.getMethod(), route), what);
                JsonNode answer = queues.serve(request.getMethod(), route, query(request), () -> body(request));
                if (answer.isMissingNode()) { // a worker's claim that no job came to in time
                    response.setStatus(204);
                    response.setHeader("Cache-Control", "no-store");
                } else {
                    boolean created =
                            answer.has("job") && !answer.get("duplicate").asBoolean()
                                    || WorkerRoutes.registered(answer);
                    write(response, created ? 201 : 200, "application/json", answer);
                }
                if (Access.isOperatorAction(request.getMethod(), route)) {
                    LOG.info("{} by {}", what, caller.get().name());
                }
            } else {
                throw new Problem(Problem.Kind.NOT_FOUND, "no resource at /" + String.join("/", path));
            }
        } catch (Problem problem) {
            if (problem.kind() == Problem.Kind.UNAUTHORIZED || problem.kind() == Problem.Kind.FORBIDDEN) {
                refused(request, caller, problem);
                if (problem.kind() == Problem.Kind.UNAUTHORIZED) {
                    response.setHeader("WWW-Authenticate", "Bearer realm=\"sluice\"");
                }
            }
            problem(response, problem.kind(), problem.getMessage());
        } catch (SluiceException unavailable) {
            LOG.warn(
                    "{} {}: the engine could not serve it: {}",
                    request.getMethod(),
                    request.getRequestURI(),
                    unavailable.getMessage());
            problem(response, Problem.Kind.UNAVAILABLE, unavailable.getMessage());
        }
    }

    /** Logs a refused change (never its token); refused reads are the client's business and are not logged. */
    private static void refused(HttpServletRequest request, Optional<Caller> caller, Problem problem) {
        if (!request.getMethod().equals("GET")) {
            LOG.warn(
                    "refused {} {} from {} ({}): {}",
                    request.getMethod(),
                    request.getRequestURI(),
                    caller.map(Caller::name).orElse("a caller without a token"),
                    request.getRemoteAddr(),
                    problem.getMessage());
        }
    }

    /** {@code /api/v1/session}: who the caller is (GET), a dashboard session for a token (POST), its end (DELETE). */
    private void session(HttpServletRequest request, HttpServletResponse response, Optional<Caller> caller)
            throws IOException {
        String cookiePath = request.getContextPath() + request.getServletPath() + "/";
        switch (request.getMethod()) {
            case "GET" -> write(response, 200, "application/json", who(caller));
            case "POST" -> {
                if (access.isOpen()) {
                    throw new Problem(
                            Problem.Kind.CONFLICT, "this server has no tokens: every request may do everything");
                }
                JsonNode token = body(request).get("token");
                if (token == null || !token.isTextual()) {
                    throw new Problem(Problem.Kind.INVALID_REQUEST, "the body must be {\"token\": \"<secret>\"}");
                }
                Map.Entry<String, Caller> session = access.startSession(token.asText());
                response.addHeader(
                        "Set-Cookie",
                        Access.SESSION_COOKIE + "=" + session.getKey() + "; Path=" + cookiePath + "; Max-Age="
                                + Access.SESSION_TIME.toSeconds() + "; HttpOnly; SameSite=Strict"
                                + (request.isSecure() ? "; Secure" : ""));
                write(response, 200, "application/json", who(Optional.of(session.getValue())));
                LOG.info(
                        "dashboard session started by {} ({})",
                        session.getValue().name(),
                        request.getRemoteAddr());
            }
            case "DELETE" -> {
                access.endSession(request);
                response.addHeader(
                        "Set-Cookie",
                        Access.SESSION_COOKIE + "=; Path=" + cookiePath + "; Max-Age=0; HttpOnly; SameSite=Strict");
                write(response, 200, "application/json", JSON.createObjectNode().put("ended", true));
            }
            default ->
                throw new Problem(
                        Problem.Kind.METHOD_NOT_ALLOWED,
                        request.getMethod() + " is not allowed on /api/v1/session (GET, POST, DELETE)");
        }
    }

    private ObjectNode who(Optional<Caller> caller) {
        return JSON.createObjectNode()
                .put("name", caller.map(Caller::name).orElse(null))
                .put("scope", caller.map(c -> c.scope().toString()).orElse("none"))
                .put("tokens", !access.isOpen());
    }

    /** The request's body as JSON: at most {@link #MOST_BODY_BYTES}, and well formed. */
    private static JsonNode body(HttpServletRequest request) {
        byte[] bytes = (byte[]) request.getAttribute(CONTENT);
        if (bytes == null) {
            throw new Problem(Problem.Kind.INVALID_REQUEST, "the body could not be read");
        }
        if (bytes.length > MOST_BODY_BYTES) {
            throw new Problem(
                    Problem.Kind.TOO_LARGE, "the body is larger than " + MOST_BODY_BYTES + " bytes, the most allowed");
        }
        try {
            return JSON.readTree(bytes);
        } catch (JsonProcessingException malformed) {
            throw new Problem(
                    Problem.Kind.INVALID_REQUEST,
                    "the body is not well-formed JSON: " + malformed.getOriginalMessage());
        } catch (IOException unreadable) {
            throw new Problem(Problem.Kind.INVALID_REQUEST, "the body could not be read: " + unreadable.getMessage());
        }
    }

    /** The largest request body the API reads: 1 MiB. */
    static final int MOST_BODY_BYTES = 1 << 20;

    private static final String CONTENT = SluiceApiServlet.class.getName() + ".content";

    /**
     * Reads the request's content (up to one byte more than {@link #MOST_BODY_BYTES}) before anything is answered,
     * whether or not its route needs it: content left unread when an answer has been sent makes the container close
     * the connection under a client that may already be sending its next request on it.
     */
    private static void readContent(HttpServletRequest request) {
        byte[] bytes;
        try (InputStream in = request.getInputStream()) {
            bytes = in.readNBytes(MOST_BODY_BYTES + 1);
        } catch (IOException unreadable) {
            bytes = null; // a route that needs the body says so
        }
        request.setAttribute(CONTENT, bytes);
    }

    /** The API's OpenAPI 3.1 description, which needs no token: it says what the API is, not what it holds. */
    private static void openApi(String method, HttpServletResponse response) throws IOException {
        if (!method.equals("GET")) {
            throw new Problem(
                    Problem.Kind.METHOD_NOT_ALLOWED, method + " is not allowed on /api/v1/openapi.yaml (GET)");
        }
        try (InputStream in = SluiceApiServlet.class.getResourceAsStream("openapi.yaml")) {
            response.setStatus(200);
            response.setContentType("application/yaml; charset=utf-8");
            response.setHeader("Cache-Control", "no-cache");
            in.transferTo(response.getOutputStream());
        }
    }

    private void metrics(String method, HttpServletResponse response) throws IOException {
        if (!method.equals("GET")) {
            throw new Problem(Problem.Kind.METHOD_NOT_ALLOWED, method + " is not allowed on /metrics (GET)");
        }
        if (prometheus == null) {
            throw new Problem(
                    Problem.Kind.NOT_FOUND, "this API serves no metrics: its builder was given no Prometheus registry");
        }
        response.setStatus(200);
        response.setContentType("text/plain; version=0.0.4; charset=utf-8");
        response.setHeader("Cache-Control", "no-store");
        response.getOutputStream().write(prometheus.scrape().getBytes(StandardCharsets.UTF_8));
    }

    private void health(String which, HttpServletResponse response) throws IOException {
        switch (which) {
            case "live" ->
                write(response, 200, "application/json", JSON.createObjectNode().put("status", "UP"));
            case "ready" -> {
                sluice.queueNames(); // throws SluiceException when the engine cannot be reached
                write(response, 200, "application/json", JSON.createObjectNode().put("status", "UP"));
            }
            default -> throw new Problem(Problem.Kind.NOT_FOUND, "no resource at /health/" + which);
        }
    }

    private static void problem(HttpServletResponse response, Problem.Kind kind, String detail) throws IOException {
        ObjectNode body = JSON.createObjectNode()
                .put("type", Problem.typeOf(kind))
                .put("title", Problem.titleOf(kind))
                .put("status", Problem.statusOf(kind))
                .put("detail", detail);
        write(response, Problem.statusOf(kind), "application/problem+json", body);
    }

    private static void write(HttpServletResponse response, int status, String type, JsonNode body) throws IOException {
        response.setStatus(status);
        response.setContentType(type);
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        JSON.writeValue(response.getOutputStream(), body);
    }

    /**
     * Stops the workers in other languages that the API bridges (their jobs go back to waiting) and the dashboard's
     * snapshots, closing its event streams.
     */
    @Override
    public void destroy() {
        endStreams();
        limiterTally.close();
        queues.close();
        super.destroy();
    }

    /** The decoded segments of {@code pathInfo}, without empty ones. */
    private static List<String> segments(String pathInfo) {
        List<String> segments = new ArrayList<>();
        if (pathInfo != null) {
            for (String segment : pathInfo.split("/")) {
                if (!segment.isEmpty()) {
                    segments.add(segment);
                }
            }
        }
        return segments;
    }

    /** The query's parameters, each once (the first of repeated ones). */
    private static Map<String, String> query(HttpServletRequest request) {
        Map<String, String> query = new HashMap<>();
        String text = request.getQueryString();
        if (text == null) {
            return query;
        }
        for (String pair : text.split("&")) {
            String[] parts = pair.split("=", 2);
            String name = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
            query.putIfAbsent(name, parts.length == 2 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "");
        }
        return query;
    }

    /** Ends the dashboard's event streams, so that a server stops without waiting for open pages. */
    void endStreams() {
        dashboardFeed.close();
    }

    @Override
    public String toString() {
        return "SluiceApiServlet[" + sluice + ", " + (access.isOpen() ? "no tokens" : "tokens") + "]";
    }

    /** How a {@link SluiceApiServlet} is made. Not thread-safe. */
    public static final class Builder {
        private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

        private final Sluice sluice;
        private ApiTokens tokens = ApiTokens.none();
        private PrometheusMeterRegistry prometheus;
        private PayloadRedaction redaction = PayloadRedaction.NONE;
        private final Map<String, NamedLimiter> limiters = new LinkedHashMap<>();
        private final Map<String, LimitChain<String>> chains = new LinkedHashMap<>();

        private Builder(Sluice sluice) {
            this.sluice = sluice;
        }

        /**
         * Serves {@code registry}'s meters at {@code /metrics} in Prometheus's text format (scope {@code read}). Bind
         * the engine's meters to it with {@code SluiceMetrics.bind(sluice, registry)}; without a registry {@code
         * /metrics} is a 404.
         *
         * @param registry the registry to scrape
         * @return this builder
         * @throws IllegalArgumentException if {@code registry} is null
         */
        public Builder prometheus(PrometheusMeterRegistry registry) {
            if (registry == null) {
                throw new IllegalArgumentException("registry must not be null");
            }
            this.prometheus = registry;
            return this;
        }

        /**
         * What readers are shown of payloads ({@code GET .../jobs/{id}} and the dashboard's job view).
         *
         * @param redaction the hook; {@link PayloadRedaction#NONE} (payloads as stored) by default
         * @return this builder
         * @throws IllegalArgumentException if {@code redaction} is null
         */
        public Builder redaction(PayloadRedaction redaction) {
            if (redaction == null) {
                throw new IllegalArgumentException("redaction must not be null; PayloadRedaction.NONE shows payloads");
            }
            this.redaction = redaction;
            return this;
        }

        /**
         * Who may call the API.
         *
         * @param tokens the tokens and what a request without one may do; {@link ApiTokens#none()} by default
         * @return this builder
         * @throws IllegalArgumentException if {@code tokens} is null
         */
        public Builder tokens(ApiTokens tokens) {
            if (tokens == null) {
                throw new IllegalArgumentException("tokens must not be null; ApiTokens.none() asks for none");
            }
            this.tokens = tokens;
            return this;
        }

        /**
         * Serves {@code limiter} under its own name at {@code /api/v1/limiters/{name}}: described, and asked for
         * permits by clients in any language ({@code POST .../acquire}).
         *
         * @param limiter a limiter of the servlet's engine
         * @return this builder
         * @throws IllegalArgumentException if it is null, or its name is taken by a limiter or chain given before
         */
        public Builder limiter(NamedLimiter limiter) {
            if (limiter == null) {
                throw new IllegalArgumentException("limiter must not be null");
            }
            limiters.put(free(limiter.name()), limiter);
            return this;
        }

        /**
         * Serves {@code chain} as {@code name} at {@code /api/v1/limiters/{name}}; a request's key is the context
         * every layer derives its key from.
         *
         * @param name 1 to 128 letters, digits and {@code . _ - :}, not taken by a limiter or chain given before
         * @param chain a chain of the servlet's engine
         * @return this builder
         * @throws IllegalArgumentException if an argument is null, or the name is malformed or taken
         */
        public Builder chain(String name, LimitChain<String> chain) {
            if (chain == null) {
                throw new IllegalArgumentException("chain must not be null");
            }
            chains.put(free(name), chain);
            return this;
        }

        private String free(String name) {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(
                        "a limiter's or chain's name must be 1 to 128 letters, digits and . _ - :, was " + name);
            }
            if (limiters.containsKey(name) || chains.containsKey(name)) {
                throw new IllegalArgumentException("the API serves a limiter or chain named '" + name + "' already");
            }
            return name;
        }

        /**
         * The servlet.
         *
         * @return the API, ready to mount
         */
        public SluiceApiServlet build() {
            return new SluiceApiServlet(this);
        }
    }
}
