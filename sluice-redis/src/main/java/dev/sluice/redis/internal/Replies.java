package dev.sluice.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Reading the queue script's replies, as Lettuce gives them: lists, longs, byte arrays, nulls. */
final class Replies {
    private Replies() {}

    @SuppressWarnings("unchecked")
    static List<Object> list(Object reply) {
        if (reply instanceof List<?> list) {
            return (List<Object>) list;
        }
        throw unexpected("a list", reply);
    }

    static long number(Object reply) {
        if (reply instanceof Long n) {
            return n;
        }
        if (reply instanceof byte[] bytes) {
            return Long.parseLong(new String(bytes, StandardCharsets.US_ASCII));
        }
        throw unexpected("an integer", reply);
    }

    static String text(Object reply) {
        if (reply instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (reply instanceof String s) {
            return s;
        }
        throw unexpected("a string", reply);
    }

    static String textOrNull(Object reply) {
        return reply == null ? null : text(reply);
    }

    static byte[] bytes(Object reply) {
        if (reply == null || reply instanceof byte[]) {
            return (byte[]) reply;
        }
        if (reply instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        throw unexpected("bytes", reply);
    }

    private static IllegalStateException unexpected(String expected, Object reply) {
        return new IllegalStateException("the queue script replied "
                + (reply == null ? "nil" : reply.getClass().getSimpleName()) + " where " + expected
                + " was expected; is another version of Sluice using these keys?");
    }
}
