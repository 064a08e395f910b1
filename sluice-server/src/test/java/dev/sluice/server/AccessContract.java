package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Tokens, scopes, dashboard sessions and the refusal of other origins, over real HTTP on every engine. */
abstract class AccessContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String READER = "reader-secret-0123456789";
    private static final String OPERATOR = "operator-secret-0123456789";
    private static final String ADMIN = "admin-secret-0123456789";

    private final HttpClient http = HttpClient.newHttpClient();
    private final List<SluiceServer> servers = new ArrayList<>();
    private Sluice sluice;
    private JobQueue<String> mail;

    /** A new, empty engine. */
    abstract Sluice newEngine();

    @BeforeEach
    void open() {
        sluice = newEngine();
        mail = sluice.queue("mail", Codec.utf8());
    }

    @AfterEach
    void close() {
        servers.forEach(SluiceServer::close);
        sluice.close();
    }

    private SluiceServer serve(ApiTokens tokens) {
        SluiceServer server = SluiceServer.builder(
                        SluiceApiServlet.builder(sluice).tokens(tokens).build())
                .port(0)
                .start();
        servers.add(server);
        return server;
    }

    private SluiceServer withTokens(Scope anonymous) {
        return serve(ApiTokens.builder()
                .token("reader", READER, Scope.READ)
                .token("operator", OPERATOR, Scope.OPERATE)
                .token("admin", ADMIN, Scope.ADMIN)
                .anonymous(anonymous)
                .build());
    }

    record Answer(int status, HttpResponse<String> response, JsonNode body) {
        String type() {
            return body.path("type").asText();
        }
    }

    private Answer call(SluiceServer server, String method, String path, String body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(server.uri().resolve(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            request.headers(headers);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response, JSON.readTree(response.body()));
    }

    private static String[] bearer(String secret) {
        return new String[] {"Authorization", "Bearer " + secret};
    }

    @Test
    void withoutTokensEveryRequestMayDoEverything() throws Exception {
        SluiceServer server = serve(ApiTokens.none());

        Answer who = call(server, "GET", "/api/v1/session", null);
        Answer pause = call(server, "POST", "/api/v1/queues/mail/pause", null);

        assertThat(who.body().get("scope").asText()).isEqualTo("admin");
        assertThat(who.body().get("tokens").asBoolean()).isFalse();
        assertThat(pause.status()).isEqualTo(200);
        assertThat(mail.isPaused()).isTrue();
    }

    @Test
    void aRequestWithoutAValidTokenIsUnauthorizedAndChangesNothing() throws Exception {
        SluiceServer server = withTokens(null);

        Answer none = call(server, "GET", "/api/v1/queues", null);
        Answer wrong = call(server, "POST", "/api/v1/queues/mail/pause", null, bearer("not-a-token-of-this-server"));
        Answer notBearer = call(server, "GET", "/api/v1/queues", null, "Authorization", "Basic " + READER);

        assertThat(none.status()).isEqualTo(401);
        assertThat(none.type()).isEqualTo("urn:sluice:problem:unauthorized");
        assertThat(none.response().headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"sluice\"");
        assertThat(none.body().get("detail").asText()).contains("scope read");
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(notBearer.status()).isEqualTo(401);
        assertThat(notBearer.body().get("detail").asText()).contains("Bearer");
        assertThat(mail.isPaused()).isFalse();
    }

    @Test
    void eachScopeAllowsItsRoutesAndRefusesWiderOnes() throws Exception {
        SluiceServer server = withTokens(null);
        mail.add("welcome", "ada");

        Answer read = call(server, "GET", "/api/v1/queues/mail", null, bearer(READER));
        Answer readerPauses = call(server, "POST", "/api/v1/queues/mail/pause", null, bearer(READER));
        boolean pausedByReader = mail.isPaused();
        Answer operatorPauses = call(server, "POST", "/api/v1/queues/mail/pause", null, bearer(OPERATOR));
        Answer operatorDrains = call(server, "POST", "/api/v1/queues/mail/drain", null, bearer(OPERATOR));
        long waitingAfterOperator = mail.counts().waiting();
        Answer operatorChangesRate =
                call(server, "PUT", "/api/v1/queues/mail/rate", "{\"rate\":null}", bearer(OPERATOR));
        Answer adminDrains = call(server, "POST", "/api/v1/queues/mail/drain", null, bearer(ADMIN));

        assertThat(read.status()).isEqualTo(200);
        assertThat(readerPauses.status()).isEqualTo(403);
        assertThat(readerPauses.type()).isEqualTo("urn:sluice:problem:forbidden");
        assertThat(readerPauses.body().get("detail").asText())
                .contains("scope operate")
                .contains("'reader'")
                .doesNotContain(READER);
        assertThat(pausedByReader).isFalse();
        assertThat(operatorPauses.status()).isEqualTo(200);
        assertThat(mail.isPaused()).isTrue();
        assertThat(operatorDrains.status()).isEqualTo(403);
        assertThat(waitingAfterOperator).isEqualTo(1);
        assertThat(operatorChangesRate.status()).isEqualTo(403);
        assertThat(operatorChangesRate.body().get("detail").asText()).contains("scope admin");
        assertThat(adminDrains.status()).isEqualTo(200);
        assertThat(adminDrains.body().get("removed").asInt()).isEqualTo(1);
    }

    @Test
    void anonymousCallersGetTheScopeConfiguredForThem() throws Exception {
        SluiceServer server = withTokens(Scope.READ);

        Answer read = call(server, "GET", "/api/v1/queues", null);
        Answer who = call(server, "GET", "/api/v1/session", null);
        Answer change = call(server, "POST", "/api/v1/queues/mail/pause", null);

        assertThat(read.status()).isEqualTo(200);
        assertThat(who.body().get("name").asText()).isEqualTo("anonymous");
        assertThat(who.body().get("scope").asText()).isEqualTo("read");
        assertThat(who.body().get("tokens").asBoolean()).isTrue();
        assertThat(change.status()).isEqualTo(403);
        assertThat(mail.isPaused()).isFalse();
    }

    @Test
    void aDashboardSessionCarriesItsTokensScopeUntilItEnds() throws Exception {
        SluiceServer server = withTokens(null);

        Answer badToken = call(server, "POST", "/api/v1/session", "{\"token\":\"nope-nope-nope-nope\"}");
        Answer started = call(server, "POST", "/api/v1/session", "{\"token\":\"" + OPERATOR + "\"}");
        String setCookie = started.response().headers().firstValue("Set-Cookie").orElseThrow();
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        Answer who = call(server, "GET", "/api/v1/session", null, "Cookie", cookie);
        Answer pause = call(server, "POST", "/api/v1/queues/mail/pause", null, "Cookie", cookie);
        Answer ended = call(server, "DELETE", "/api/v1/session", null, "Cookie", cookie);
        Answer afterEnd = call(server, "GET", "/api/v1/queues", null, "Cookie", cookie);

        assertThat(badToken.status()).isEqualTo(401);
        assertThat(badToken.response().headers().firstValue("Set-Cookie")).isEmpty();
        assertThat(started.status()).isEqualTo(200);
        assertThat(setCookie).startsWith("sluice_session=").contains("HttpOnly", "SameSite=Strict", "Path=/");
        assertThat(setCookie).doesNotContain(OPERATOR);
        assertThat(who.body().get("name").asText()).isEqualTo("operator");
        assertThat(who.body().get("scope").asText()).isEqualTo("operate");
        assertThat(pause.status()).isEqualTo(200);
        assertThat(ended.status()).isEqualTo(200);
        assertThat(afterEnd.status()).isEqualTo(401);
    }

    @Test
    void changesSentByPagesOfAnotherOriginAreRefused() throws Exception {
        SluiceServer server = serve(ApiTokens.none());
        String self = server.uri().toString().replaceAll("/$", "");

        Answer crossSite = call(server, "POST", "/api/v1/queues/mail/pause", null, "Sec-Fetch-Site", "cross-site");
        Answer otherOrigin = call(server, "POST", "/api/v1/queues/mail/pause", null, "Origin", "http://evil.example");
        Answer opaque = call(server, "POST", "/api/v1/queues/mail/pause", null, "Origin", "null");
        boolean pausedByOthers = mail.isPaused();
        Answer read = call(server, "GET", "/api/v1/queues", null, "Sec-Fetch-Site", "cross-site");
        Answer sameOrigin = call(
                server, "POST", "/api/v1/queues/mail/pause", null, "Origin", self, "Sec-Fetch-Site", "same-origin");

        assertThat(crossSite.status()).isEqualTo(403);
        assertThat(otherOrigin.status()).isEqualTo(403);
        assertThat(otherOrigin.body().get("detail").asText()).contains("http://evil.example");
        assertThat(opaque.status()).isEqualTo(403);
        assertThat(pausedByOthers).isFalse();
        assertThat(read.status()).isEqualTo(200);
        assertThat(sameOrigin.status()).isEqualTo(200);
        assertThat(mail.isPaused()).isTrue();
    }

    @Test
    void healthNeedsNoToken() throws Exception {
        SluiceServer server = withTokens(null);

        assertThat(call(server, "GET", "/health/live", null).status()).isEqualTo(200);
        assertThat(call(server, "GET", "/health/ready", null).status()).isEqualTo(200);
    }

    @Test
    void listensBeyondLoopbackOnlyWithTokens() {
        assertThatThrownBy(() ->
                        SluiceServer.builder(sluice).host("0.0.0.0").port(0).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("loopback")
                .hasMessageContaining("0.0.0.0")
                .hasMessageContaining("tokens");

        SluiceApiServlet api = SluiceApiServlet.builder(sluice)
                .tokens(ApiTokens.builder().token("ops", ADMIN, Scope.ADMIN).build())
                .build();
        SluiceServer server = SluiceServer.builder(api).host("0.0.0.0").port(0).start();
        servers.add(server);
        assertThat(server.uri().getPort()).isPositive();
    }
}
