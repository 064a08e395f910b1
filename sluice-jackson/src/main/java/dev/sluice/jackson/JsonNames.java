package dev.sluice.jackson;

import dev.sluice.queue.Codec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The name of a JSON codec for a type, as {@link JsonCodec}'s class comment states it. */
final class JsonNames {
    static final String PREFIX = "json:";
    private static final int HASH_DIGITS = 16;

    private JsonNames() {}

    /** The name for the type Jackson writes as {@code canonicalType}. */
    static String of(String canonicalType) {
        String name = PREFIX + canonicalType;
        if (name.length() <= Codec.MAX_NAME_LENGTH) {
            return name;
        }
        String hash = sha256Hex(canonicalType).substring(0, HASH_DIGITS);
        return name.substring(0, Codec.MAX_NAME_LENGTH - HASH_DIGITS - 1) + "~" + hash;
    }

    private static String sha256Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
