package dev.sluice.server.internal;

/**
 * A request the API refuses or cannot serve, answered as RFC 9457 problem details: a stable {@code type} per kind of
 * problem (the API's contract with clients), a title, the status and a detail naming what was wrong.
 */
public final class Problem extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kinds of problem, each with its status and stable type. */
    public enum Kind {
        /** No route serves the path and method. */
        NOT_FOUND(404, "not-found", "No such resource"),
        /** The path names a queue the engine does not hold. */
        QUEUE_NOT_FOUND(404, "queue-not-found", "No such queue"),
        /** The path names a job the queue does not hold. */
        JOB_NOT_FOUND(404, "job-not-found", "No such job"),
        /** The path names a limiter or chain the API does not serve. */
        LIMITER_NOT_FOUND(404, "limiter-not-found", "No such limiter"),
        /** A parameter or body is malformed or out of range. */
        INVALID_REQUEST(400, "invalid-request", "Invalid request"),
        /** The request is valid, but the state of what it names refuses it (a job that is not failed, say). */
        CONFLICT(409, "conflict", "Refused in the current state"),
        /** The request's body is larger than the API reads. */
        TOO_LARGE(413, "too-large", "Request body too large"),
        /** The route exists, but not for this method. */
        METHOD_NOT_ALLOWED(405, "method-not-allowed", "Method not allowed"),
        /** The request carries no token, or one the server does not know. */
        UNAUTHORIZED(401, "unauthorized", "Authentication required"),
        /** The request's token does not allow it, or it came from a page of another origin. */
        FORBIDDEN(403, "forbidden", "Not allowed"),
        /** The engine could not be reached. */
        UNAVAILABLE(503, "unavailable", "Engine unavailable");

        final int status;
        final String type;
        final String title;

        Kind(int status, String type, String title) {
            this.status = status;
            this.type = "urn:sluice:problem:" + type;
            this.title = title;
        }
    }

    final Kind kind;

    /** A problem of {@code kind}; {@code detail} says what was wrong, for a person. */
    public Problem(Kind kind, String detail) {
        super(detail);
        this.kind = kind;
    }

    /** The stable type of {@code kind}, a URN such as {@code urn:sluice:problem:queue-not-found}. */
    public static String typeOf(Kind kind) {
        return kind.type;
    }

    /** The title of {@code kind}. */
    public static String titleOf(Kind kind) {
        return kind.title;
    }

    /** The HTTP status of {@code kind}. */
    public static int statusOf(Kind kind) {
        return kind.status;
    }

    /** The kind of problem. */
    public Kind kind() {
        return kind;
    }
}
