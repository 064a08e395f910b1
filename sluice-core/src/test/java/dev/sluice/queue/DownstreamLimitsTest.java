package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Reading what a downstream's answer says of its limits, field by field, with literal times. */
class DownstreamLimitsTest {
    private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

    private static DownstreamLimits of(String... fields) {
        Map<String, List<String>> headers = new java.util.HashMap<>();
        for (int i = 0; i < fields.length; i += 2) {
            headers.computeIfAbsent(fields[i], k -> new ArrayList<>()).add(fields[i + 1]);
        }
        return DownstreamLimits.of(headers, NOW);
    }

    @Test
    void retryAfterIsReadAsSecondsOrAsAnHttpDate() {
        assertThat(of("Retry-After", "120").retryAfter()).contains(Duration.ofSeconds(120));
        assertThat(of("retry-after", " 0 ").retryAfter()).contains(Duration.ZERO);
        assertThat(of("Retry-After", "Mon, 07 Dec 2026 10:00:30 GMT").retryAfter())
                .contains(Duration.ofSeconds(30));
        assertThat(of("Retry-After", "Mon, 07 Dec 2026 09:59:00 GMT").retryAfter())
                .as("a date gone by: no wait")
                .contains(Duration.ZERO);
        assertThat(of("Retry-After", "soon").retryAfter()).isEmpty();
        assertThat(of("Retry-After", "-5").retryAfter()).isEmpty();
        assertThat(of().retryAfter()).isEmpty();
    }

    @Test
    void theIetfFieldGivesTheMostRestrictiveOfItsQuotas() {
        DownstreamLimits limits = of("RateLimit", "\"burst\";r=50;t=10, \"daily\";r=100;t=3600");

        assertThat(limits.remaining()).isEqualTo(OptionalLong.of(100));
        assertThat(limits.resetIn()).contains(Duration.ofHours(1));
        assertThat(of("RateLimit", "\"burst\";r=0;t=42").remaining()).isEqualTo(OptionalLong.of(0));
        assertThat(of("RateLimit", "\"a\";r=x;t=5").resetIn()).as("unreadable").isEmpty();
        assertThat(of("RateLimit", "\"a\";r=3;t=0").resetIn())
                .as("no time left to spread over")
                .isEmpty();
    }

    @Test
    void earlierDraftsAndTheCommonFieldsAreReadToo() {
        DownstreamLimits dictionary = of("RateLimit", "limit=100, remaining=17, reset=42");
        assertThat(dictionary.remaining()).isEqualTo(OptionalLong.of(17));
        assertThat(dictionary.resetIn()).contains(Duration.ofSeconds(42));

        DownstreamLimits split = of("RateLimit-Remaining", "5", "RateLimit-Reset", "7");
        assertThat(split.remaining()).isEqualTo(OptionalLong.of(5));
        assertThat(split.resetIn()).contains(Duration.ofSeconds(7));

        DownstreamLimits unix =
                of("X-RateLimit-Remaining", "4999", "X-RateLimit-Reset", "" + (NOW.getEpochSecond() + 90));
        assertThat(unix.remaining()).isEqualTo(OptionalLong.of(4999));
        assertThat(unix.resetIn()).as("a Unix time").contains(Duration.ofSeconds(90));
        assertThat(of("X-RateLimit-Remaining", "1", "X-RateLimit-Reset", "" + (NOW.toEpochMilli() + 5_000))
                        .resetIn())
                .as("a Unix time in milliseconds")
                .contains(Duration.ofSeconds(5));
        assertThat(of("X-RateLimit-Remaining", "1", "X-RateLimit-Reset", "60").resetIn())
                .as("seconds from now")
                .contains(Duration.ofSeconds(60));
        assertThat(of("X-RateLimit-Remaining", "1").resetIn())
                .as("half a quota")
                .isEmpty();
        assertThat(of("RateLimit", "\"a\";r=1;t=2", "X-RateLimit-Remaining", "9", "X-RateLimit-Reset", "9")
                        .remaining())
                .as("the IETF field first")
                .isEqualTo(OptionalLong.of(1));
    }

    @Test
    void theQuotaIsToldToTheContextAndARefusalWaitsAsTheAnswerSays() {
        List<String> told = new ArrayList<>();
        @SuppressWarnings("unchecked")
        JobContext<String> context = (JobContext<String>) Proxy.newProxyInstance(
                JobContext.class.getClassLoader(), new Class<?>[] {JobContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("quota")) {
                        told.add(args[0] + " " + args[1] + " " + args[2]);
                    }
                    return null;
                });
        DownstreamLimits spent = of("RateLimit", "\"a\";r=0;t=42");
        spent.tell(context, Result.Scope.GROUP);
        of("Retry-After", "3").tell(context, Result.Scope.QUEUE);

        assertThat(told).containsExactly("GROUP 0 PT42S");
        assertThat(spent.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(1)))
                .as("a spent quota waits for its reset")
                .isEqualTo(Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(42)));
        assertThat(of("Retry-After", "3", "RateLimit", "\"a\";r=0;t=42").rateLimited(Result.Scope.QUEUE, Duration.ZERO))
                .isEqualTo(Result.rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(3)));
        assertThat(of().rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(1)))
                .isEqualTo(Result.rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(1)));
        assertThat(of("Retry-After", "3").toString())
                .isEqualTo("DownstreamLimits{retryAfter=PT3S, remaining=OptionalLong.empty, resetIn=null}");
        assertThatThrownBy(() -> spent.tell(context, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DownstreamLimits.of((Map<String, List<String>>) null, NOW))
                .hasMessageContaining("headers");
        assertThat(DownstreamLimits.of(name -> null, NOW).retryAfter()).isEqualTo(Optional.empty());
    }
}
