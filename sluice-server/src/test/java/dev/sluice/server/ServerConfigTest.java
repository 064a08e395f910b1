package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Retention;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The configuration file: what a good one declares, and the one message each kind of bad one gets. */
class ServerConfigTest {
    private static final Map<String, String> ENV = Map.of("CI_SECRET", "ci-secret-0123456789");

    private static ServerConfig parse(String yaml) {
        return ServerConfig.parse(yaml, "sluice.yaml", ENV);
    }

    @Test
    void anEmptyFileIsTheDefaults() {
        ServerConfig config = parse("");

        assertThat(config.host()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(8080);
        assertThat(config.redis()).isNull();
        assertThat(config.tokens()).isEmpty();
        assertThat(config.anonymous()).isEqualTo("none");
        assertThat(config.dashboard()).isEqualTo(new ServerConfig.Dashboard(true, "Sluice"));
        assertThat(config.queues()).isEmpty();
        assertThat(config.limiters()).isEmpty();
        assertThat(config.chains()).isEmpty();
    }

    @Test
    void readsEveryPartOfAGoodFile() {
        ServerConfig config = parse("""
                server: {host: 0.0.0.0, port: 9090}
                redis: redis://localhost:6379
                tokens:
                  - {name: ci, secretEnv: CI_SECRET, scope: operate}
                  - {name: ops, secret: "ops-secret-0123456789", scope: admin}
                anonymous: read
                dashboard: {enabled: false, title: Ops}
                queues:
                  mail:
                    maxQueued: 10
                    whenFull: block
                    blockFor: 2s
                    rate: {policy: token-bucket, capacity: 5, refillPeriod: 1s}
                    concurrency: 3
                    groupDefaults: {rate: {policy: gcra, rate: 2, period: 1s}, concurrency: 1, maxQueued: 4}
                    jobDefaults:
                      attempts: 3
                      backoff: {type: fixed, delay: 10s}
                      keepCompleted: none
                      keepFailed: {maxCount: 7, maxAge: 1d}
                limiters:
                  stripe: {policy: gcra, rate: 100, period: 1s, burst: 25, whenUnavailable: fall-back, share: 0.5}
                  jobs: {policy: concurrency, maxConcurrent: 4, leaseTimeout: 30s, maxKeys: 10}
                  window: {policy: sliding-window-log, limit: 3, window: 1m}
                chains:
                  checkout: [window, {limiter: stripe, key: global}]
                """);

        assertThat(config.host()).isEqualTo("0.0.0.0");
        assertThat(config.port()).isEqualTo(9090);
        assertThat(config.redis()).isEqualTo("redis://localhost:6379");
        assertThat(config.tokens())
                .containsExactly(
                        new ServerConfig.Token("ci", "ci-secret-0123456789", "operate"),
                        new ServerConfig.Token("ops", "ops-secret-0123456789", "admin"));
        assertThat(config.anonymous()).isEqualTo("read");
        assertThat(config.dashboard()).isEqualTo(new ServerConfig.Dashboard(false, "Ops"));
        QueueOptions mail = config.queues().get("mail");
        assertThat(mail.maxQueued()).isEqualTo(10);
        assertThat(mail.whenFull()).isEqualTo(QueueOptions.WhenFull.block(Duration.ofSeconds(2)));
        assertThat(mail.rate()).isEqualTo(TokenBucket.of(5, Duration.ofSeconds(1)));
        assertThat(mail.concurrency()).isEqualTo(3);
        assertThat(mail.groupDefaults().rate()).isEqualTo(Gcra.of(2, Duration.ofSeconds(1), 1));
        assertThat(mail.groupDefaults().concurrency()).isEqualTo(1);
        assertThat(mail.groupDefaults().maxQueued()).isEqualTo(4);
        assertThat(mail.jobDefaults().attempts()).isEqualTo(3);
        assertThat(mail.jobDefaults().backoff()).isEqualTo(Backoff.fixed(Duration.ofSeconds(10)));
        assertThat(mail.jobDefaults().keepCompleted()).isEqualTo(Retention.keepNone());
        assertThat(mail.jobDefaults().keepFailed()).isEqualTo(new Retention(7, Duration.ofDays(1)));
        assertThat(config.limiters().get("stripe").policy()).isEqualTo(Gcra.of(100, Duration.ofSeconds(1), 25));
        assertThat(config.limiters().get("stripe").options().whenUnavailable())
                .isEqualTo(WhenUnavailable.fallBack(0.5));
        assertThat(config.limiters().get("jobs").policy()).isEqualTo(ConcurrencyLimit.of(4, Duration.ofSeconds(30)));
        assertThat(config.limiters().get("jobs").options().maxKeys()).isEqualTo(10);
        assertThat(config.limiters().get("window").policy()).isEqualTo(SlidingWindowLog.of(3, Duration.ofMinutes(1)));
        assertThat(config.chains().get("checkout"))
                .containsExactly(new ServerConfig.Layer("window", null), new ServerConfig.Layer("stripe", "global"));
    }

    @Test
    void secretsAreNeverPrinted() {
        ServerConfig config = parse("tokens: [{name: ci, secret: \"ci-secret-0123456789\", scope: read}]");

        assertThat(config.toString()).contains("ci").doesNotContain("ci-secret-0123456789");
        assertThatThrownBy(() -> parse("tokens: [{name: ci, secret: \"short-secret\", scope: read}]"))
                .hasMessageNotContaining("short-secret")
                .hasMessageContaining("tokens[0].secret: the secret must be 16 to 1024 characters");
        assertThatThrownBy(() -> parse("tokens: [{name: ci, secret: 12345678901234567890, scope: read}]"))
                .hasMessageNotContaining("12345678901234567890")
                .hasMessageContaining("tokens[0].secret: must be text (quote it)");
    }

    @Test
    void loadsAFileAndNamesItInItsProblems(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, "server: {port: 9091}\n");
        assertThat(ServerConfig.load(file).port()).isEqualTo(9091);

        Files.writeString(file, "server: {port: 70000}\n");
        assertThatThrownBy(() -> ServerConfig.load(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + ": server.port: must be a whole number from 0 to 65535, was 70000");
        assertThatThrownBy(() -> ServerConfig.load(dir.resolve("missing.yaml")))
                .hasMessageStartingWith(dir.resolve("missing.yaml") + ": cannot be read");
    }

    /** Each bad file, and the start of the one message it gets (after {@code sluice.yaml: }). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            serve: {port: 1}                                    | serve: unknown key (allowed at the top: server, redis, tokens, anonymous, dashboard, queues, limiters, chains)
            server: {prot: 1}                                   | server.prot: unknown key (allowed in server: host, port)
            server: {port: eighty}                              | server.port: must be a whole number from 0 to 65535, was 'eighty'
            server: {host: 0.0.0.0}                             | server.host: '0.0.0.0' is reachable from other hosts, and no tokens are declared
            redis: localhost:6379                               | redis: must be a Redis URL: redis://, rediss://, redis-socket:// or redis-sentinel://, was 'localhost:6379'
            anonymous: write                                    | anonymous: must be one of none, read, was 'write'
            dashboard: {refresh: 1s}                            | dashboard.refresh: unknown key (allowed in dashboard: enabled, title)
            dashboard: {enabled: maybe}                         | dashboard.enabled: must be true or false, was 'maybe'
            tokens: {name: ci}                                  | tokens: must be a list of tokens, each with name, secret (or secretEnv) and scope, was a mapping
            tokens: [{name: ci, secretEnv: CI_SECRET}]          | tokens[0].scope: is required: one of read, operate, admin
            tokens: [{name: ci, secretEnv: CI_SECRET, scope: root}] | tokens[0].scope: must be one of read, operate, admin, was 'root'
            tokens: [{name: ci, secretEnv: NOT_SET, scope: read}]   | tokens[0].secretEnv: the environment variable NOT_SET is not set
            tokens: [{name: ci, scope: read}]                   | tokens[0]: needs exactly one of secret (the secret itself) or secretEnv
            tokens: [{name: a, secretEnv: CI_SECRET, scope: read}, {name: a, secret: '0123456789abcdefgh', scope: read}] | tokens[1].name: 'a' is given twice (tokens[0] has it too)
            tokens: [{name: a, secretEnv: CI_SECRET, scope: read}, {name: b, secretEnv: CI_SECRET, scope: read}]         | tokens[1]: has the same secret as tokens[0]
            tokens: [{name: a b, secretEnv: CI_SECRET, scope: read}] | tokens[0].name: must be 1 to 64 letters, digits and . _ - :, was 'a b'
            limiters: {stripe: {policy: gcra, rate: ten, period: 1s}}   | limiters.stripe.rate: must be a whole number from 1 to 9223372036854775807, was 'ten'
            limiters: {stripe: {policy: leaky, rate: 1}}                | limiters.stripe.policy: must be one of token-bucket, gcra, fixed-window, sliding-window-counter, sliding-window-log, concurrency, was 'leaky'
            limiters: {stripe: {rate: 1}}                               | limiters.stripe.policy: is required: one of token-bucket, gcra
            limiters: {stripe: {policy: gcra, rate: 1, period: 1s, window: 1s}} | limiters.stripe.window: unknown key (allowed in limiters.stripe: policy, rate, period, burst, maxKeys, whenUnavailable, share)
            limiters: {stripe: {policy: gcra, rate: 1}}                 | limiters.stripe.period: is required: a duration
            limiters: {stripe: {policy: gcra, rate: 1, period: soon}}   | limiters.stripe.period: must be a duration
            limiters: {stripe: {policy: fixed-window, limit: 0, window: 1s}} | limiters.stripe.limit: must be a whole number from 1 to 1000000000000, was 0
            limiters: {stripe: {policy: token-bucket, capacity: 1000000000000, refillTokens: 1, refillPeriod: 1d}} | limiters.stripe: capacity
            limiters: {stripe: {policy: gcra, rate: 1, period: 1s, share: 0.5}} | limiters.stripe.share: share is needed with whenUnavailable: fall-back, and only then
            limiters: {stripe: {policy: gcra, rate: 1, period: 1s, whenUnavailable: fall-back, share: 2}} | limiters.stripe.share: must be a number above 0 and at most 1, was 2
            limiters: {stripe: {policy: gcra, rate: 1, period: 1s, whenUnavailable: retry}} | limiters.stripe.whenUnavailable: must be one of fail-closed, fail-open, fall-back, was 'retry'
            limiters: {a/b: {policy: gcra, rate: 1, period: 1s}}        | limiters.a/b: 'a/b' cannot name a limiter: a name is 1 to 128 letters, digits and . _ - :
            limiters: {stripe: gcra}                                    | limiters.stripe: must be a mapping with the policy and its parameters, was 'gcra'
            chains: {pay: [stripe]}                                     | chains.pay[0]: names no limiter of the file: 'stripe' (limiters: none)
            chains: {pay: []}                                           | chains.pay: must be a list of one or more limiter names
            queues: {mail: {maxQueued: -1}}                             | queues.mail.maxQueued: must be a whole number from 1 to 2147483647, was -1
            queues: {mail: {retention: 1d}}                             | queues.mail.retention: unknown key (allowed in queues.mail: maxQueued, whenFull, blockFor, rate, concurrency, maxPayloadBytes, groupDefaults, jobDefaults)
            queues: {mail: {whenFull: block}}                           | queues.mail.blockFor: blockFor (how long an add waits for room) is needed with whenFull: block, and only then
            queues: {mail: {rate: {policy: concurrency, maxConcurrent: 1, leaseTimeout: 1s}}} | queues.mail.rate.policy: must be one of token-bucket, gcra, fixed-window, sliding-window-counter, sliding-window-log, adaptive, was 'concurrency'
            queues: {mail: {rate: {policy: adaptive, ceiling: {policy: gcra, rate: 10, period: 1s}, floor: 20}}} | queues.mail.rate.floor: must be a rate per second above 0 and at most 10.0, was 20
            queues: {mail: {jobDefaults: {keepFailed: some}}}           | queues.mail.jobDefaults.keepFailed: must be one of all, none, was 'some'
            queues: {mail: {jobDefaults: {backoff: {type: linear}}}}    | queues.mail.jobDefaults.backoff.type: must be one of none, fixed, exponential, exponential-jitter, was 'linear'
            queues: {mail: {jobDefaults: {backoff: {type: exponential, base: 1m, cap: 1s}}}} | queues.mail.jobDefaults.backoff:
            queues: {mail: {jobDefaults: {attempts: 0}}}                | queues.mail.jobDefaults.attempts: must be a whole number from 1 to 1000000, was 0
            queues: {mail: {groupDefaults: {concurrency: 0}}}           | queues.mail.groupDefaults.concurrency: must be a whole number from 1 to 2147483647, was 0
            """)
    void aBadFileIsOneMessageNamingTheKey(String yaml, String message) {
        assertThatThrownBy(() -> parse(yaml))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("sluice.yaml: " + message)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aChainMayNotTakeALimitersName() {
        assertThatThrownBy(() -> parse("""
                        limiters: {a: {policy: gcra, rate: 1, period: 1s}}
                        chains: {a: [a]}
                        """))
                .hasMessageStartingWith("sluice.yaml: chains.a: 'a' is a limiter's name already");
    }

    @Test
    void malformedYamlAndDuplicateKeysSayWhere() {
        assertThatThrownBy(() -> parse("server:\n  port: 1\n  port: 2\n"))
                .hasMessageStartingWith("sluice.yaml: line 3, column")
                .hasMessageContaining("port");
        assertThatThrownBy(() -> parse("server: [1, 2\n"))
                .hasMessageStartingWith("sluice.yaml: line")
                .hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> parse("- a\n- b\n"))
                .hasMessage("sluice.yaml: the file must be a mapping of keys (server, redis, tokens, anonymous,"
                        + " dashboard, queues, limiters, chains), was a list");
    }

    @Test
    void theLayersOfAChainKeepTheirOrder() {
        ServerConfig config = parse("""
                limiters:
                  b: {policy: gcra, rate: 1, period: 1s}
                  a: {policy: gcra, rate: 1, period: 1s}
                chains: {both: [b, a]}
                """);

        assertThat(config.limiters().keySet()).containsExactly("b", "a");
        assertThat(config.chains().get("both"))
                .extracting(ServerConfig.Layer::limiter)
                .isEqualTo(List.of("b", "a"));
    }
}
