package dev.sluice.spring;

import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis engine could not be made because Redis could not be reached at startup and a declaration cannot work
 * without it (a fail-closed limiter). It names the Redis (its URL without the password), the cause, and those
 * declarations; {@link SluiceFailureAnalyzer} turns it into the startup failure's message. Without such a
 * declaration the engine is made anyway, and connects in the background.
 */
final class RedisUnreachableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    /** The user information of a URL: {@code user:password} or, as Lettuce reads it, a password alone. */
    /** What a password is shown as: Lettuce's mask. */
    private static final String MASK = "******";

    private static final Pattern USER_INFO = Pattern.compile("^([a-z-]+://)(?:([^:@/]*):)?([^@/]*)@");

    private final String redis;
    private final String setting;
    private final String reason;
    private final List<String> needingRedis;

    private RedisUnreachableException(
            String redis, String setting, String reason, List<String> needingRedis, Throwable cause) {
        super("Redis at " + redis + " cannot be reached: " + reason, cause);
        this.redis = redis;
        this.setting = setting;
        this.reason = reason;
        this.needingRedis = List.copyOf(needingRedis);
    }

    /**
     * @param url the URL of {@code sluice.redis.url}, or null when the engine was to use the application's client
     * @param failure why the engine could not connect
     * @param needingRedis the declarations that cannot work without Redis, by property path
     */
    static RedisUnreachableException of(String url, RuntimeException failure, List<String> needingRedis) {
        String shown = url == null ? "the address of the application's Lettuce RedisClient" : withoutPassword(url);
        String setting = url == null ? "the application's RedisClient bean" : "sluice.redis.url";
        String reason = String.valueOf(failure.getMessage());
        String password = password(url);
        if (url != null) {
            reason = reason.replace(url, shown);
        }
        if (!password.isEmpty()) {
            reason = reason.replace(password, MASK);
        }
        return new RedisUnreachableException(shown, setting, reason, needingRedis, failure);
    }

    /**
     * {@code url} as the Redis engine writes it in its own messages (Lettuce's form: the password shown as {@code
     * ******}, the default port left out), so that one message names one Redis one way; a URL Lettuce cannot read
     * keeps its form, with the password masked the same way.
     */
    static String withoutPassword(String url) {
        try {
            return RedisURI.create(url).toString();
        } catch (RuntimeException unreadable) {
            Matcher matcher = USER_INFO.matcher(url);
            if (!matcher.find() || matcher.group(3).isEmpty()) {
                return url;
            }
            String user = matcher.group(2) == null || matcher.group(2).isEmpty() ? "" : matcher.group(2) + ":";
            return matcher.group(1) + user + MASK + "@" + url.substring(matcher.end());
        }
    }

    private static String password(String url) {
        Matcher matcher = url == null ? null : USER_INFO.matcher(url);
        return matcher != null && matcher.find() ? matcher.group(3) : "";
    }

    /** The Redis as the message names it: its URL without the password, or the application's client. */
    String redis() {
        return redis;
    }

    /** Where the Redis was given: {@code sluice.redis.url}, or the application's client. */
    String setting() {
        return setting;
    }

    /** Why the engine could not connect, without the password. */
    String reason() {
        return reason;
    }

    /** The declarations that cannot work without Redis, by property path; empty if every one can. */
    List<String> needingRedis() {
        return needingRedis;
    }
}
