package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.Decision;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Connecting from a URL (password, database, TLS) or from the application's own client. */
class RedisConnectionTest {
    private static final TokenBucket THREE_A_MINUTE = TokenBucket.of(3, Duration.ofMinutes(1));

    @Test
    void aUrlThatIsNotRedisIsRefusedNamingTheSchemesAllowed() {
        assertThatThrownBy(() -> RedisSluice.connect("http://localhost:6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://")
                .hasMessageContaining("rediss://")
                .hasMessageContaining("redis-sentinel://")
                .hasMessageContaining("http://localhost:6379");
        for (String malformed : new String[] {"redis://localhost:port", "redis://:6379", "redis://local host:6379"}) {
            assertThatThrownBy(() -> RedisSluice.connect(malformed))
                    .as(malformed)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Redis URL '" + malformed + "' is malformed")
                    .hasMessageContaining("expected redis[s]://[[user]:password@]host[:port][/database]");
        }
        assertThatThrownBy(() -> RedisSluice.builder().keyPrefix("has space"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisSluice.builder().commandTimeout(Duration.ZERO))
                .hasMessageContaining("between 1 ms and 1 minute");
        assertThatThrownBy(() -> RedisSluice.builder().build()).hasMessageContaining("exactly one of");
    }

    @Test
    void aRedisThatIsNotThereIsATypedErrorAtConnection() throws IOException {
        int unused;
        try (ServerSocket socket = new ServerSocket(0)) {
            unused = socket.getLocalPort();
        }
        int port = unused;
        assertThatThrownBy(() -> RedisSluice.connect("redis://127.0.0.1:" + port))
                .isInstanceOf(SluiceException.class)
                .hasMessageContaining("cannot connect to Redis");
    }

    /** Makes {@code redis} refuse every client that does not give {@code password}. */
    private static void requirePassword(RedisServer redis, String password) {
        RedisClient setup = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = setup.connect()) {
            connection.sync().configSet("requirepass", password);
        } finally {
            setup.shutdown();
        }
    }

    /**
     * A refused connection never shows the password. (Which answer of the server it names is pinned by
     * ConnectFailureTest: Lettuce sometimes loses a WRONGPASS answer, reporting "RedisHandshakeHandler not
     * registered" instead, so a real server cannot pin it without flaking.)
     */
    @Test
    void aRefusedConnectionNeverShowsThePassword() {
        try (RedisServer redis = RedisServer.start()) {
            requirePassword(redis, "s3cret");
            String server = "127.0.0.1:" + redis.port();

            assertThatThrownBy(() -> RedisSluice.connect("redis://:wrong-pw@" + server))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("cannot connect to Redis")
                    .hasMessageNotContaining("wrong-pw");
            assertThatThrownBy(() -> RedisSluice.connect("redis://" + server))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("cannot connect to Redis");
            assertThatThrownBy(() -> RedisSluice.connect("redis://:s3cret@" + server + "/99"))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("cannot connect to Redis")
                    .hasMessageNotContaining("s3cret");
        }
    }

    @Test
    void passwordAndDatabaseComeFromTheUrl() {
        try (RedisServer redis = RedisServer.start()) {
            requirePassword(redis, "s3cret");
            String url = "redis://:s3cret@127.0.0.1:" + redis.port() + "/3";
            try (Sluice sluice =
                    RedisSluice.builder().url(url).keyPrefix("conn").build()) {
                assertThat(sluice.limiter("pw", THREE_A_MINUTE).tryAcquire("k").allowed())
                        .isTrue();
            }
            RedisClient admin = RedisClient.create(url);
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                assertThat(connection.sync().keys("conn:*")).isNotEmpty();
                connection.sync().select(0);
                assertThat(connection.sync().keys("conn:*"))
                        .as("nothing in database 0")
                        .isEmpty();
            } finally {
                admin.shutdown();
            }
            assertThatThrownBy(() -> RedisSluice.connect("redis://:wrong@127.0.0.1:" + redis.port()))
                    .isInstanceOf(SluiceException.class);

            RedisClient acl = RedisClient.create(url);
            try (StatefulRedisConnection<String, String> connection = acl.connect()) {
                connection
                        .sync()
                        .aclSetuser(
                                "limits",
                                io.lettuce.core.AclSetuserArgs.Builder.on()
                                        .addPassword("pw")
                                        .allKeys()
                                        .allCommands());
            } finally {
                acl.shutdown();
            }
            String userUrl = "redis://limits:pw@127.0.0.1:" + redis.port();
            try (Sluice sluice =
                    RedisSluice.builder().url(userUrl).keyPrefix("user").build()) {
                assertThat(sluice.limiter("acl", THREE_A_MINUTE).tryAcquire("k").allowed())
                        .isTrue();
            }
        }
    }

    /**
     * Regression: closing an engine that owns its client a second time shut the client down again, and Lettuce
     * logged a warning. Lettuce logs through java.util.logging here (no SLF4J provider on the test path).
     */
    @Test
    void closingAnEngineTwiceIsSilentAndLaterUseNamesTheClosedEngine() {
        Sluice sluice = RedisSluice.connect(RedisServer.shared().uri());
        var limiter = sluice.limiter("closing", TokenBucket.perSecond(1));
        sluice.close();
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    logged.add(record);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger root = Logger.getLogger("");
        root.addHandler(handler);
        try {
            sluice.close();
            sluice.close();
        } finally {
            root.removeHandler(handler);
        }

        assertThat(logged).extracting(LogRecord::getMessage).isEmpty();
        assertThatThrownBy(() -> limiter.tryAcquire("k"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(sluice.toString())
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> sluice.limiter("closing", TokenBucket.perSecond(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void theApplicationsClientStaysOpenAfterTheEngineCloses() {
        RedisClient client = RedisClient.create(RedisServer.shared().uri());
        try {
            Sluice sluice =
                    RedisSluice.builder().client(client).keyPrefix("own").build();
            Decision decision = sluice.limiter("own", THREE_A_MINUTE).tryAcquire("k");
            assertThat(decision.allowed()).isTrue();
            sluice.close();
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().ping()).isEqualTo("PONG");
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void tlsFromARedissUrl(@TempDir Path dir) throws Exception {
        assumeThat(run(dir, "openssl", "version"))
                .as("openssl makes the test certificate")
                .isZero();
        assertThat(run(
                        dir,
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-keyout",
                        "key.pem",
                        "-out",
                        "cert.pem",
                        "-days",
                        "1",
                        "-subj",
                        "/CN=127.0.0.1",
                        "-addext",
                        "subjectAltName=IP:127.0.0.1"))
                .isZero();
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process server = new ProcessBuilder(List.of(
                        RedisServer.shared().binary().toString(),
                        "--port",
                        "0",
                        "--tls-port",
                        Integer.toString(port),
                        "--tls-cert-file",
                        "cert.pem",
                        "--tls-key-file",
                        "key.pem",
                        "--tls-ca-cert-file",
                        "cert.pem",
                        "--tls-auth-clients",
                        "no",
                        "--save",
                        "",
                        "--appendonly",
                        "no"))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.log").toFile())
                .start();
        try {
            String url = "rediss://127.0.0.1:" + port + "?verifyPeer=NONE";
            Sluice[] connected = new Sluice[1];
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                if (!server.isAlive()) {
                    return true; // a server built without TLS refuses the options and exits
                }
                try {
                    connected[0] =
                            RedisSluice.builder().url(url).keyPrefix("tls").build();
                    return true;
                } catch (SluiceException notListeningYet) {
                    return false;
                }
            });
            assumeThat(connected[0])
                    .as("this redis-server was built with TLS: " + Files.readString(dir.resolve("server.log")))
                    .isNotNull();
            Sluice sluice = connected[0];
            try (Sluice tls = sluice) {
                assertThat(tls.limiter("tls", THREE_A_MINUTE).tryAcquire("k", 3).allowed())
                        .isTrue();
                assertThat(tls.limiter("tls", THREE_A_MINUTE).tryAcquire("k").allowed())
                        .isFalse();
            }
        } finally {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int run(Path dir, String... command) throws Exception {
        try {
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve(command[0] + ".log").toFile())
                    .start();
            return process.waitFor(60, TimeUnit.SECONDS) ? process.exitValue() : -1;
        } catch (IOException notInstalled) {
            return -1;
        }
    }
}
