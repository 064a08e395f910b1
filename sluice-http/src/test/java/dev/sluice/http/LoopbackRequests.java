package dev.sluice.http;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;

/** Requests to a test server on the loopback address, for the tests that run the filter in a container. */
public final class LoopbackRequests {
    private LoopbackRequests() {}

    /**
     * A GET of {@code path} on the server at {@code port}, with {@code headers} as name, value pairs, that gives up
     * after 30 s.
     */
    public static HttpRequest get(int port, String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request.build();
    }
}
