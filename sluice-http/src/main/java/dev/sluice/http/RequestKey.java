package dev.sluice.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;

/**
 * What a rule's limits are keyed by: the client's address, a header such as an API key, the authenticated
 * principal, or any function of the request.
 *
 * <p>Keys of each kind carry a prefix ({@code ip:}, {@code key:}, {@code user:}, {@code fn:}), so that a header
 * value can never name another client's address. A request without the header, principal or value a key
 * needs is keyed by its client address instead: unidentified requests never share one key. A value longer
 * than 256 characters is keyed by its SHA-256.
 */
@FunctionalInterface
public interface RequestKey {
    /**
     * The key of {@code request}, whose client is {@code client}.
     *
     * @param request the request
     * @param client its client, as the limiter's resolver found it
     * @return the key: 1 to 512 characters
     */
    String keyOf(IngressRequest request, ClientAddress client);

    /**
     * The client's address ({@link ClientAddress#key()}).
     *
     * @return the key
     */
    static RequestKey clientAddress() {
        return (request, client) -> "ip:" + client.key();
    }

    /**
     * The first value of header {@code name}, such as {@code X-Api-Key}; the client's address without it.
     *
     * @param name the header's name
     * @return the key
     * @throws IllegalArgumentException if the name is blank
     */
    static RequestKey header(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("header name of a request key must not be blank");
        }
        return (request, client) -> {
            List<String> values = request.headers(name);
            String value = values.isEmpty() ? "" : values.get(0).strip();
            return value.isEmpty() ? "ip:" + client.key() : "key:" + bounded(value);
        };
    }

    /**
     * The authenticated principal's name; the client's address for anonymous requests.
     *
     * @return the key
     */
    static RequestKey principal() {
        return (request, client) -> request.principal()
                .filter(name -> !name.isBlank())
                .map(name -> "user:" + bounded(name))
                .orElseGet(() -> "ip:" + client.key());
    }

    /**
     * A value of the application's: a tenant id from the path, say; the client's address when it gives null
     * or a blank value.
     *
     * @param key derives the key from the request
     * @return the key
     * @throws IllegalArgumentException if the function is null
     */
    static RequestKey of(Function<? super IngressRequest, String> key) {
        if (key == null) {
            throw new IllegalArgumentException("request key function must not be null");
        }
        return (request, client) -> {
            String value = key.apply(request);
            return value == null || value.isBlank() ? "ip:" + client.key() : "fn:" + bounded(value);
        };
    }

    private static String bounded(String value) {
        if (value.length() <= 256) {
            return value;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
