package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.IngressDecision.Outcome;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ingress limits on virtual time, held to the same behaviour on every engine. */
abstract class IngressLimiterContract extends EngineFixture {
    static IngressRequest get(String path, String peer) {
        return request("GET", path, peer, Map.of());
    }

    static IngressRequest request(String method, String path, String peer, Map<String, List<String>> headers) {
        return IngressRequest.of(method, path, peer, headers, null);
    }

    @Test
    void anAllowedRequestCarriesThePolicyAndWhatIsLeft() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit("burst", limiter(SlidingWindowLog.of(3, Duration.ofSeconds(10))))
                        .build())
                .build();

        IngressDecision decision = ingress.check(get("/orders", "203.0.113.9"));

        assertThat(decision.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(decision.allowed()).isTrue();
        assertThat(decision.rule()).isEqualTo("api");
        assertThat(decision.headers())
                .containsExactly(
                        Map.entry("RateLimit-Policy", "\"burst\";q=3;w=10"),
                        Map.entry("RateLimit", "\"burst\";r=2;t=10"));
        assertThat(decision.problem()).isNull();
    }

    @Test
    void theRequestOverTheLimitIsAnswered429WithRetryAfterAndAProblem() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit("burst", limiter(SlidingWindowLog.of(3, Duration.ofSeconds(10))))
                        .build())
                .build();
        for (int i = 0; i < 3; i++) {
            assertThat(ingress.check(get("/orders", "203.0.113.9")).allowed()).isTrue();
        }
        clock.advance(Duration.ofMillis(3_500));

        IngressDecision denied = ingress.check(get("/orders", "203.0.113.9"));

        assertThat(denied.outcome()).isEqualTo(Outcome.LIMITED);
        assertThat(denied.status()).isEqualTo(429);
        assertThat(denied.headers())
                .containsEntry("Retry-After", "7")
                .containsEntry("RateLimit", "\"burst\";r=0;t=7")
                .containsEntry("RateLimit-Policy", "\"burst\";q=3;w=10");
        assertThat(denied.problem())
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                        + "\"detail\":\"Rate limit 'burst' of rule 'api' exceeded; retry in 7 s.\",\"rule\":\"api\","
                        + "\"policy\":\"burst\",\"retryAfter\":7}");
        assertThat(ingress.check(get("/orders", "198.51.100.1")).allowed())
                .as("another client has its own limit")
                .isTrue();
        clock.advance(Duration.ofMillis(6_500));
        assertThat(ingress.check(get("/orders", "203.0.113.9")).allowed()).isTrue();
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpAndNeverZero() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit(limiter(FixedWindow.of(1, Duration.ofSeconds(2))))
                        .build())
                .build();
        clock.advance(Duration.ofMillis(1_999)); // the window ends 1 ms from now
        IngressRequest request = get("/", "203.0.113.9");
        assertThat(ingress.check(request).allowed()).isTrue();

        IngressDecision denied = ingress.check(request);

        assertThat(denied.headers()).containsEntry("Retry-After", "1");
        clock.advance(Duration.ofMillis(1));
        assertThat(ingress.check(request).allowed()).isTrue();
    }

    @Test
    void aRulesLimitsAreTakenAllOrNothing() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit("burst", limiter(SlidingWindowLog.of(2, Duration.ofSeconds(1))))
                        .limit("daily", limiter(FixedWindow.of(3, Duration.ofDays(1))))
                        .build())
                .build();
        IngressRequest request = get("/", "203.0.113.9");

        IngressDecision first = ingress.check(request);
        assertThat(first.headers())
                .containsEntry("RateLimit-Policy", "\"burst\";q=2;w=1, \"daily\";q=3;w=86400")
                .containsEntry("RateLimit", "\"burst\";r=1;t=1");
        assertThat(ingress.check(request).allowed()).isTrue();
        IngressDecision burst = ingress.check(request);
        assertThat(burst.headers()).containsEntry("RateLimit", "\"burst\";r=0;t=1");
        assertThat(ingress.check(request).allowed()).isFalse();

        clock.advance(Duration.ofSeconds(1));
        IngressDecision third = ingress.check(request);
        assertThat(third.allowed())
                .as("the denied requests took nothing of the daily quota")
                .isTrue();
        assertThat(third.headers().get("RateLimit")).startsWith("\"daily\";r=0;");

        clock.advance(Duration.ofSeconds(1));
        IngressDecision daily = ingress.check(request);
        assertThat(daily.outcome()).isEqualTo(Outcome.LIMITED);
        assertThat(daily.problem()).contains("\"policy\":\"daily\"");
        assertThat(daily.headers().get("RateLimit")).startsWith("\"daily\";r=0;t=");
    }

    @Test
    void aRequestCostsItsPermitsOfEachLimit() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("upload")
                        .limit("bytes", limiter(TokenBucket.of(5, Duration.ofSeconds(5))))
                        .cost(2)
                        .build())
                .rule(IngressRule.named("rest")
                        .limit("calls", limiter(TokenBucket.of(10, Duration.ofSeconds(10))))
                        .cost(r -> r.method().equals("POST") ? 4 : 1)
                        .build())
                .build();

        assertThat(ingress.check(get("/", "203.0.113.9")).headers()).containsEntry("RateLimit", "\"bytes\";r=3;t=2");
        assertThat(ingress.check(get("/", "203.0.113.9")).headers()).containsEntry("RateLimit", "\"bytes\";r=1;t=4");
        assertThat(ingress.check(get("/", "203.0.113.9")).outcome()).isEqualTo(Outcome.LIMITED);
        assertThatThrownBy(() -> IngressRule.named("x")
                        .limit(limiter(TokenBucket.of(5, Duration.ofSeconds(5))))
                        .cost(6)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cost 6")
                .hasMessageContaining("limit 5");
    }

    @Test
    void exemptClientsPassWithoutTakingPermits() {
        RateLimiter one = limiter(FixedWindow.of(1, Duration.ofMinutes(1)));
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit(one)
                        .exempt("10.0.0.0/8", "2001:db8::/32")
                        .build())
                .build();

        for (int i = 0; i < 5; i++) {
            IngressDecision decision = ingress.check(get("/", "10.1.2.3"));
            assertThat(decision.outcome()).isEqualTo(Outcome.NOT_LIMITED);
            assertThat(decision.headers()).isEmpty();
            assertThat(ingress.check(get("/", "2001:db8::5")).outcome()).isEqualTo(Outcome.NOT_LIMITED);
        }
        assertThat(one.available("ip:10.1.2.3")).isEqualTo(1);
        assertThat(ingress.check(get("/", "203.0.113.9")).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    void theFirstRuleThatMatchesPathAndMethodApplies() {
        RateLimiter login = limiter(FixedWindow.of(1, Duration.ofMinutes(1)));
        RateLimiter api = limiter(FixedWindow.of(100, Duration.ofMinutes(1)));
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("login")
                        .paths("/login")
                        .methods("post")
                        .limit(login)
                        .build())
                .rule(IngressRule.named("api")
                        .paths("/api/**", "/v*/items/*.json")
                        .limit(api)
                        .build())
                .build();

        assertThat(ingress.check(request("POST", "/login", "203.0.113.9", Map.of()))
                        .rule())
                .isEqualTo("login");
        for (String sneaky : List.of("//login", "/login/", "/login;jsessionid=1", "login")) {
            assertThat(ingress.check(request("POST", sneaky, "203.0.113.9", Map.of()))
                            .outcome())
                    .as(sneaky)
                    .isEqualTo(Outcome.LIMITED);
        }
        assertThat(ingress.check(request("GET", "/login", "203.0.113.9", Map.of()))
                        .outcome())
                .isEqualTo(Outcome.NOT_LIMITED);
        assertThat(ingress.check(get("/api", "203.0.113.9")).rule()).isEqualTo("api");
        assertThat(ingress.check(get("/api/orders/17", "203.0.113.9")).rule()).isEqualTo("api");
        assertThat(ingress.check(get("/v2/items/a.json", "203.0.113.9")).rule()).isEqualTo("api");
        assertThat(ingress.check(get("/v2/items/a/b.json", "203.0.113.9")).outcome())
                .isEqualTo(Outcome.NOT_LIMITED);
        assertThat(ingress.check(get("/apix", "203.0.113.9")).outcome()).isEqualTo(Outcome.NOT_LIMITED);
        IngressDecision unmatched = ingress.check(get("/health", "203.0.113.9"));
        assertThat(unmatched.outcome()).isEqualTo(Outcome.NOT_LIMITED);
        assertThat(unmatched.rule()).isNull();
        assertThat(unmatched.headers()).isEmpty();
    }

    @Test
    void keysByHeaderOrPrincipalAndNeverSharesAKeyBetweenUnidentifiedClients() {
        RateLimiter perKey = limiter(FixedWindow.of(1, Duration.ofMinutes(1)));
        RateLimiter perUser = limiter(FixedWindow.of(1, Duration.ofMinutes(1)));
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("keys")
                        .paths("/k")
                        .keyedBy(RequestKey.header("X-Api-Key"))
                        .limit(perKey)
                        .build())
                .rule(IngressRule.named("users")
                        .paths("/u")
                        .keyedBy(RequestKey.principal())
                        .limit(perUser)
                        .build())
                .build();
        Map<String, List<String>> alice = Map.of("x-api-key", List.of("alice-key"));

        assertThat(ingress.check(request("GET", "/k", "203.0.113.9", alice)).allowed())
                .isTrue();
        assertThat(ingress.check(request("GET", "/k", "198.51.100.1", alice)).allowed())
                .as("one API key, wherever it comes from")
                .isFalse();
        assertThat(ingress.check(request("GET", "/k", "198.51.100.1", Map.of("X-API-KEY", List.of("bob-key"))))
                        .allowed())
                .isTrue();
        assertThat(ingress.check(get("/k", "192.0.2.1")).allowed()).isTrue();
        assertThat(ingress.check(get("/k", "192.0.2.2")).allowed())
                .as("no key: keyed by address")
                .isTrue();
        assertThat(ingress.check(request("GET", "/k", "192.0.2.3", Map.of("X-Api-Key", List.of("192.0.2.1"))))
                        .allowed())
                .as("a key that looks like an address is not that address")
                .isTrue();

        assertThat(ingress.check(IngressRequest.of("GET", "/u", "192.0.2.1", Map.of(), "alice"))
                        .allowed())
                .isTrue();
        assertThat(ingress.check(IngressRequest.of("GET", "/u", "192.0.2.9", Map.of(), "alice"))
                        .allowed())
                .isFalse();
        assertThat(ingress.check(IngressRequest.of("GET", "/u", "192.0.2.9", Map.of(), null))
                        .allowed())
                .isTrue();
        assertThat(ingress.check(IngressRequest.of("GET", "/u", "192.0.2.8", Map.of(), null))
                        .allowed())
                .isTrue();
    }

    @Test
    void legacyHeadersFollowTheDecidingPolicy() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit("burst", limiter(SlidingWindowLog.of(2, Duration.ofSeconds(30))))
                        .build())
                .legacyHeaders(true)
                .build();
        IngressRequest request = get("/", "203.0.113.9");

        assertThat(ingress.check(request).headers())
                .containsEntry("X-RateLimit-Limit", "2")
                .containsEntry("X-RateLimit-Remaining", "1")
                .containsEntry("X-RateLimit-Reset", "30");
        ingress.check(request);
        clock.advance(Duration.ofSeconds(10));
        assertThat(ingress.check(request).headers())
                .containsEntry("X-RateLimit-Remaining", "0")
                .containsEntry("X-RateLimit-Reset", "20")
                .containsEntry("Retry-After", "20");
    }

    @Test
    void aConcurrencyLimitHoldsItsPermitUntilTheResponseIsDone() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("reports")
                        .limit("parallel", limiter(ConcurrencyLimit.of(1, Duration.ofMinutes(1))))
                        .build())
                .build();
        IngressRequest request = get("/report", "203.0.113.9");

        IngressDecision running = ingress.check(request);
        assertThat(running.headers()).containsEntry("RateLimit-Policy", "\"parallel\";q=1;qu=\"concurrent-requests\"");
        assertThat(ingress.check(request).outcome()).isEqualTo(Outcome.LIMITED);
        running.release();
        running.release();
        IngressDecision next = ingress.check(request);
        assertThat(next.allowed()).isTrue();
        assertThat(ingress.check(request).allowed())
                .as("a second release gave back nothing more")
                .isFalse();
    }

    @Test
    void aPolicysWindowIsTheTimeItsQuotaTakesToComeBack() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit("bucket", limiter(TokenBucket.of(10, 1, Duration.ofSeconds(1))))
                        .limit("gcra", limiter(Gcra.of(10, Duration.ofSeconds(1), 5)))
                        .limit("short", limiter(SlidingWindowLog.of(50, Duration.ofMillis(1_500))))
                        .build())
                .build();

        assertThat(ingress.check(get("/", "203.0.113.9")).headers())
                .containsEntry("RateLimit-Policy", "\"bucket\";q=10;w=10, \"gcra\";q=5;w=1, \"short\";q=50;w=2");
    }

    @Test
    void thePolicyFieldFollowsALimitersUpdatedPolicy() {
        RateLimiter limiter = limiter(FixedWindow.of(10, Duration.ofMinutes(1)));
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api").limit("calls", limiter).build())
                .build();
        assertThat(ingress.check(get("/", "203.0.113.9")).headers())
                .containsEntry("RateLimit-Policy", "\"calls\";q=10;w=60");

        limiter.setPolicy(FixedWindow.of(20, Duration.ofSeconds(30)));

        assertThat(ingress.check(get("/", "203.0.113.9")).headers())
                .containsEntry("RateLimit-Policy", "\"calls\";q=20;w=30");
    }

    @Test
    void keysByAFunctionOfTheRequestAndHashesLongValues() {
        RateLimiter perTenant = limiter(FixedWindow.of(1, Duration.ofMinutes(1)));
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("tenants")
                        .keyedBy(RequestKey.of(
                                r -> r.path().startsWith("/t/") ? r.path().substring(3) : null))
                        .limit(perTenant)
                        .build())
                .build();
        String longTenant = "x".repeat(300);

        assertThat(ingress.check(get("/t/acme", "192.0.2.1")).allowed()).isTrue();
        assertThat(ingress.check(get("/t/acme", "192.0.2.2")).allowed()).isFalse();
        assertThat(ingress.check(get("/t/" + longTenant, "192.0.2.1")).allowed())
                .isTrue();
        assertThat(ingress.check(get("/t/" + longTenant, "192.0.2.2")).allowed())
                .isFalse();
        assertThat(ingress.check(get("/t/" + longTenant + "y", "192.0.2.2")).allowed())
                .isTrue();
        assertThat(perTenant.available("fn:acme")).isZero();
        assertThat(ingress.check(get("/other", "192.0.2.1")).allowed()).isTrue();
        assertThat(perTenant.available("ip:192.0.2.1")).isZero();
        assertThat(ingress.rules()).extracting(IngressRule::name).containsExactly("tenants");
        assertThat(ingress.rules().get(0).paths()).containsExactly("/**");
        assertThat(ingress.rules().get(0).methods()).isEmpty();
        assertThat(ingress.check(get("/t/acme", "192.0.2.3")).limitDecision())
                .hasValueSatisfying(d -> assertThat(d.denied()).isTrue());
    }

    @Test
    void aCostOutOfRangeFromAFunctionIsTheCallersError() {
        IngressLimiter ingress = IngressLimiter.builder(sluice)
                .rule(IngressRule.named("api")
                        .limit(limiter(FixedWindow.of(3, Duration.ofMinutes(1))))
                        .cost(r -> 9)
                        .build())
                .build();
        assertThatThrownBy(() -> ingress.check(get("/", "203.0.113.9"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void namesBadRules() {
        assertThatThrownBy(() -> IngressRule.named("bad name")).hasMessageContaining("'bad name'");
        assertThatThrownBy(() -> IngressRule.named("r").build()).hasMessageContaining("at least one limit");
        assertThatThrownBy(() -> IngressRule.named("r").paths("api/**")).hasMessageContaining("start with '/'");
        RateLimiter one = limiter(FixedWindow.of(1, Duration.ofMinutes(1)));
        assertThatThrownBy(() -> IngressRule.named("r").limit("p", one).limit("p", one))
                .hasMessageContaining("policy 'p' already");
        IngressRule rule = IngressRule.named("r").limit(one).build();
        assertThatThrownBy(() -> IngressLimiter.builder(sluice).rule(rule).rule(rule))
                .hasMessageContaining("'r' was added already");
    }
}
