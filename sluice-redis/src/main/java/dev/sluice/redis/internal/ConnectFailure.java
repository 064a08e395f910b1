package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import io.lettuce.core.RedisCommandExecutionException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;

/**
 * The error of a connection that could not be opened, naming its real cause: Lettuce wraps a refused password or
 * a bad database number in "Unable to connect to host:port", which says neither.
 */
final class ConnectFailure {
    private ConnectFailure() {}

    /**
     * An exception whose message names the cause of {@code e}, and what to do about it where that is known.
     *
     * @param description the server, as the engine names it (never with a password), or null
     */
    static SluiceException of(String description, Throwable e) {
        String where = description == null ? "" : " (" + description + ")";
        return new SluiceException("cannot connect to Redis" + where + ": " + reason(e), e);
    }

    /** The cause of {@code e} for people: the server's own answer where it gave one, otherwise the deepest cause. */
    static String reason(Throwable e) {
        Throwable deepest = e;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandExecutionException refused && refused.getMessage() != null) {
                return refused.getMessage() + advice(refused.getMessage());
            }
            if (t instanceof ConnectException && t.getMessage() != null) {
                return t.getMessage()
                        + (t.getMessage().contains("refused")
                                ? " (no Redis listens there, or a firewall refuses it)"
                                : "");
            }
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return "the host name cannot be resolved" + (t.getMessage() == null ? "" : " (" + t.getMessage() + ")");
            }
            deepest = t;
        }
        String message = deepest.getMessage();
        return message == null ? deepest.getClass().getSimpleName() : message;
    }

    private static String advice(String answer) {
        String upper = answer.toUpperCase(Locale.ROOT);
        if (upper.startsWith("NOAUTH")) {
            return " (the server needs a password: give it in the URL, redis://[user]:password@host:port)";
        }
        if (upper.startsWith("WRONGPASS") || upper.contains("INVALID PASSWORD")) {
            return " (the user name or password in the URL is wrong)";
        }
        if (upper.contains("DB INDEX IS OUT OF RANGE")) {
            return " (the database number in the URL, redis://host:port/N, is more than the server's `databases`"
                    + " setting allows; N counts from 0)";
        }
        return "";
    }
}
