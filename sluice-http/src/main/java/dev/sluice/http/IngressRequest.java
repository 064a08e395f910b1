package dev.sluice.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the ingress limits read of an HTTP request, whatever the framework: its method, path, headers, the
 * address of the peer that opened the connection, and the authenticated principal. A framework adapter (such
 * as {@link dev.sluice.http.servlet.SluiceRateLimitFilter}) implements it over its own request; {@link #of}
 * makes one from plain values.
 */
public interface IngressRequest {
    /**
     * The request method, upper case as sent: {@code GET}, {@code POST}.
     *
     * @return the method
     */
    String method();

    /**
     * The request path within the application, without the query: {@code /api/orders/17}.
     *
     * @return the path, starting with '/'
     */
    String path();

    /**
     * Every value of the header {@code name} (case-insensitive), in the order received; several fields of one
     * name each give one value.
     *
     * @param name the header's name
     * @return the values, empty if there is no such header
     */
    List<String> headers(String name);

    /**
     * The address of the peer the connection comes from: the client, or the nearest proxy. An IP literal
     * ({@code 192.0.2.1}, {@code 2001:db8::1}), as the server reports it.
     *
     * @return the peer's address
     */
    String peerAddress();

    /**
     * The name of the authenticated user, if the application authenticated one before the limits run.
     *
     * @return the principal's name, or empty
     */
    Optional<String> principal();

    /**
     * A request of plain values, for tests and for frameworks without an adapter.
     *
     * @param method the method
     * @param path the path within the application
     * @param peerAddress the peer's address
     * @param headers header names (any case) to their values in order; copied
     * @param principal the authenticated user's name, or null
     * @return the request
     * @throws IllegalArgumentException if the method, path, peer address or headers are null
     */
    static IngressRequest of(
            String method, String path, String peerAddress, Map<String, List<String>> headers, String principal) {
        if (method == null || path == null || peerAddress == null || headers == null) {
            throw new IllegalArgumentException("method, path, peer address and headers of a request must not be null");
        }
        Map<String, List<String>> copy = new TreeMap<>();
        headers.forEach((name, values) -> copy.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                .addAll(values));
        Optional<String> user = Optional.ofNullable(principal);
        return new IngressRequest() {
            @Override
            public String method() {
                return method;
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public List<String> headers(String name) {
                return List.copyOf(copy.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
            }

            @Override
            public String peerAddress() {
                return peerAddress;
            }

            @Override
            public Optional<String> principal() {
                return user;
            }

            @Override
            public String toString() {
                return method + " " + path + " from " + peerAddress;
            }
        };
    }
}
