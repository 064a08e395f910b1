package dev.sluice.server.internal;

import dev.sluice.server.ApiTokens;
import dev.sluice.server.ApiTokens.Caller;
import dev.sluice.server.Scope;
import dev.sluice.server.internal.Problem.Kind;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Who a request comes from and whether it may do what it asks: its bearer token or dashboard session, the scope its
 * route needs, and a refusal of state changes sent by pages of another origin.
 */
public final class Access {
    /** The cookie that carries a dashboard session. */
    public static final String SESSION_COOKIE = "sluice_session";

    /** How long a dashboard session lasts: 12 hours. */
    public static final Duration SESSION_TIME = Duration.ofHours(12);

    private static final int MOST_SESSIONS = 10_000;
    private static final Caller OPEN = new Caller("anonymous", Scope.ADMIN);

    private final ApiTokens tokens;
    private final LongSupplier nanoTime;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    private record Session(Caller caller, long endsAtNanos) {}

    /** Access by {@code tokens}; {@code nanoTime} ages sessions. */
    public Access(ApiTokens tokens, LongSupplier nanoTime) {
        this.tokens = tokens;
        this.nanoTime = nanoTime;
    }

    /** Whether every request may do everything (no token configured). */
    public boolean isOpen() {
        return tokens.isOpen();
    }

    /**
     * The caller of {@code request}: by its bearer token, else its session cookie, else the anonymous scope.
     *
     * @return the caller, or empty if the request may do nothing
     * @throws Problem {@code unauthorized} if it sends a bearer token no one has
     */
    public Optional<Caller> caller(HttpServletRequest request) {
        if (tokens.isOpen()) {
            return Optional.of(OPEN);
        }
        String authorization = request.getHeader("Authorization");
        if (authorization != null) {
            if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
                throw new Problem(Kind.UNAUTHORIZED, "the Authorization header must be 'Bearer <token>'");
            }
            return Optional.of(tokens.find(authorization.substring(7).strip())
                    .orElseThrow(() -> new Problem(Kind.UNAUTHORIZED, "the bearer token is not one of this server's")));
        }
        Optional<Caller> session = session(request);
        if (session.isPresent()) {
            return session;
        }
        return tokens.anonymous().map(scope -> new Caller("anonymous", scope));
    }

    /**
     * Refuses {@code request} unless {@code caller} may do what its route needs.
     *
     * @throws Problem {@code unauthorized} without a caller, {@code forbidden} if the caller's scope is too narrow
     */
    public static void check(Optional<Caller> caller, Scope needed, String what) {
        if (caller.isEmpty()) {
            throw new Problem(
                    Kind.UNAUTHORIZED, what + " needs a token of scope " + needed + " (Authorization: Bearer <token>)");
        }
        if (!caller.get().scope().includes(needed)) {
            throw new Problem(
                    Kind.FORBIDDEN,
                    what + " needs scope " + needed + "; token '" + caller.get().name() + "' has scope "
                            + caller.get().scope());
        }
    }

    /**
     * The scope a request needs: reading needs {@code read}; removing many jobs, a whole queue or changing a rate
     * needs {@code admin}; any other change needs {@code operate}.
     *
     * @param path the segments after {@code /api/v1}
     */
    public static Scope needed(String method, List<String> path) {
        if (method.equals("GET") || method.equals("HEAD")) {
            return Scope.READ;
        }
        boolean queueRoute = path.size() >= 2 && path.get(0).equals("queues");
        if (queueRoute && path.size() == 2 && method.equals("DELETE")) {
            return Scope.ADMIN;
        }
        if (queueRoute && path.size() == 3 && List.of("clean", "drain", "rate").contains(path.get(2))) {
            return Scope.ADMIN;
        }
        return Scope.OPERATE;
    }

    /**
     * Whether a request is an operator's action, which the log of actions records with who made it: a change that
     * is not adding jobs nor a worker's call (those come by the thousand from programs, and their effects are the
     * jobs' own history).
     *
     * @param path the segments after {@code /api/v1}
     */
    public static boolean isOperatorAction(String method, List<String> path) {
        if (method.equals("GET") || method.equals("HEAD")) {
            return false;
        }
        boolean queueRoute = path.size() >= 3 && path.get(0).equals("queues");
        boolean adding = queueRoute && path.size() == 3 && path.get(2).equals("jobs");
        boolean worker = queueRoute && path.get(2).equals("workers");
        return !adding && !worker;
    }

    /**
     * Refuses a state change that a page of another origin sent (cross-site request forgery): browsers say so in
     * {@code Sec-Fetch-Site}, or in an {@code Origin} that is not the request's host. Clients that are not browsers
     * send neither and pass.
     *
     * @throws Problem {@code forbidden} for such a request
     */
    public static void refuseOtherOrigins(HttpServletRequest request) {
        String method = request.getMethod();
        if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
            return;
        }
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            throw new Problem(Kind.FORBIDDEN, "a " + method + " from another site (" + site + ") is refused");
        }
        String origin = request.getHeader("Origin");
        String host = request.getHeader("Host");
        if (origin != null && (host == null || !host.equalsIgnoreCase(authority(origin)))) {
            throw new Problem(Kind.FORBIDDEN, "a " + method + " from origin " + origin + " is refused");
        }
    }

    /** The host and port of {@code origin}; empty for an opaque ({@code null}) or malformed one. */
    private static String authority(String origin) {
        try {
            String authority = URI.create(origin).getRawAuthority();
            return authority == null ? "" : authority;
        } catch (IllegalArgumentException malformed) {
            return "";
        }
    }

    /**
     * Starts a dashboard session for the holder of {@code secret}.
     *
     * @return the session's id, for the cookie, and its caller
     * @throws Problem {@code unauthorized} if no token has that secret
     */
    public Map.Entry<String, Caller> startSession(String secret) {
        Caller caller = tokens.find(secret)
                .orElseThrow(() -> new Problem(Kind.UNAUTHORIZED, "the token is not one of this server's"));
        long now = nanoTime.getAsLong();
        if (sessions.size() >= MOST_SESSIONS) {
            sessions.values().removeIf(session -> session.endsAtNanos - now <= 0);
            if (sessions.size() >= MOST_SESSIONS) {
                throw new Problem(Kind.CONFLICT, "the server holds " + MOST_SESSIONS + " sessions, the most it keeps");
            }
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        sessions.put(id, new Session(caller, now + SESSION_TIME.toNanos()));
        return Map.entry(id, caller);
    }

    /** Ends the session of {@code request}, if it has one. */
    public void endSession(HttpServletRequest request) {
        String id = sessionId(request);
        if (id != null) {
            sessions.remove(id);
        }
    }

    private Optional<Caller> session(HttpServletRequest request) {
        String id = sessionId(request);
        Session session = id == null ? null : sessions.get(id);
        if (session == null) {
            return Optional.empty();
        }
        if (session.endsAtNanos - nanoTime.getAsLong() <= 0) {
            sessions.remove(id, session);
            return Optional.empty();
        }
        return Optional.of(session.caller);
    }

    private static String sessionId(HttpServletRequest request) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie cookie : cookies) {
                if (cookie.getName().equals(SESSION_COOKIE)) {
                    return cookie.getValue();
                }
            }
        }
        return null;
    }
}
