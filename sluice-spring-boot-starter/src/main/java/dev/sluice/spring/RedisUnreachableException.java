package dev.sluice.spring;

import dev.sluice.limit.WhenUnavailable;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Redis engine could not be made because Redis could not be reached at startup. It names the Redis (its URL
 * without the password), the cause, and the declarations that cannot work without Redis; {@link
 * SluiceFailureAnalyzer} turns it into the startup failure's message.
 */
final class RedisUnreachableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    /** The user information of a URL: {@code user:password} or, as Lettuce reads it, a password alone. */
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
     * @param properties the declarations, to tell which of them need Redis from the start
     */
    static RedisUnreachableException of(String url, RuntimeException failure, SluiceProperties properties) {
        String shown = url == null ? "the address of the application's Lettuce RedisClient" : withoutPassword(url);
        String setting = url == null ? "the application's RedisClient bean" : "sluice.redis.url";
        String reason = String.valueOf(failure.getMessage());
        String password = password(url);
        if (url != null) {
            reason = reason.replace(url, shown);
        }
        if (!password.isEmpty()) {
            reason = reason.replace(password, "****");
        }
        return new RedisUnreachableException(shown, setting, reason, needingRedis(properties), failure);
    }

    /**
     * The declarations that cannot answer without Redis: every queue, and every limiter that denies while Redis
     * is unavailable (fail-closed, the default), by their property paths.
     */
    static List<String> needingRedis(SluiceProperties properties) {
        List<String> needing = new ArrayList<>();
        new TreeMap<>(properties.queues()).keySet().forEach(name -> needing.add("sluice.queues." + name));
        new TreeMap<>(properties.limiters()).forEach((name, limiter) -> {
            String property = "sluice.limiters." + name + ".when-unavailable";
            WhenUnavailable when = limiter.whenUnavailable() == null
                    ? WhenUnavailable.failClosed()
                    : Declarations.whenUnavailable(property, limiter.whenUnavailable());
            if (when.action() == WhenUnavailable.Action.DENY) {
                needing.add("sluice.limiters." + name + " (fail-closed)");
            }
        });
        return needing;
    }

    /** {@code url} with its password, if any, replaced by {@code ****}. */
    static String withoutPassword(String url) {
        Matcher matcher = USER_INFO.matcher(url);
        if (!matcher.find() || matcher.group(3).isEmpty()) {
            return url;
        }
        String user = matcher.group(2) == null ? "" : matcher.group(2) + ":";
        return matcher.group(1) + user + "****@" + url.substring(matcher.end());
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

    /** The declarations that cannot answer without Redis, by property path; empty if every one can. */
    List<String> needingRedis() {
        return needingRedis;
    }
}
