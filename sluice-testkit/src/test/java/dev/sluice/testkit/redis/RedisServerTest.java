package dev.sluice.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RedisServerTest {
    @Test
    void startsOnAFreePortWithoutPersistenceAndServesCommands() throws IOException {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.port()).isNotEqualTo(6379).isPositive();
            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
            assertThat(redis.isRunning()).isTrue();
            assertThat(redis.binary()).isExecutable();
            assertThat(RedisBinaries.compareVersions(redis.version(), "6.2")).isNotNegative();

            assertThat(call(redis, "SET", "greeting", "hello")).isEqualTo("OK");
            assertThat(call(redis, "GET", "greeting")).isEqualTo("hello");
            assertThat(call(redis, "CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(call(redis, "CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "no"));
            assertThat(call(redis, "CONFIG", "GET", "dir"))
                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                    .element(1)
                    .isEqualTo(redis.dir().toRealPath().toString());
        }
    }

    @Test
    void killRefusesConnectionsAndRestartServesOnTheSamePortAgain() throws IOException {
        try (RedisServer redis = RedisServer.start()) {
            int port = redis.port();
            call(redis, "SET", "k", "v");

            redis.kill();
            assertThat(redis.isRunning()).isFalse();
            assertThatThrownBy(() -> RespClient.connect(redis.host(), port, Duration.ofSeconds(1)))
                    .isInstanceOf(ConnectException.class);
            redis.kill();

            redis.restart();
            assertThat(redis.isRunning()).isTrue();
            assertThat(redis.port()).isEqualTo(port);
            assertThat(call(redis, "PING")).isEqualTo("PONG");
            assertThat(call(redis, "GET", "k")).as("nothing survives a kill").isNull();

            long pid = pid(redis);
            redis.restart();
            assertThat(pid(redis)).as("restart of a running server replaces it").isNotEqualTo(pid);
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        }
    }

    @Test
    void closeKillsTheProcessDeletesTheDirectoryAndIsIdempotent() throws IOException {
        RedisServer redis = RedisServer.start();
        long pid = pid(redis);
        Path dir = redis.dir();

        redis.close();
        redis.close();

        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(dir).doesNotExist();
        assertThat(redis.isRunning()).isFalse();
        assertThatThrownBy(redis::restart)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void passesExtraArgumentsToTheServer() throws IOException {
        try (RedisServer redis = RedisServer.start("--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru")) {
            assertThat(call(redis, "CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
            redis.restart();
            assertThat(call(redis, "CONFIG", "GET", "maxmemory-policy"))
                    .isEqualTo(List.of("maxmemory-policy", "allkeys-lru"));
        }
    }

    @Test
    void refusesOptionsThatItSetsItself() {
        assertThatThrownBy(() -> RedisServer.start("--port", "6379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--port");
    }

    @Test
    void aServerThatCannotStartFailsWithItsOutput() {
        assertThatThrownBy(() -> RedisServer.start("--no-such-directive", "x"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited")
                .hasMessageContaining("no-such-directive");
    }

    @Test
    void sharedIsOneServerThatCloseDoesNotStop() throws IOException {
        RedisServer shared = RedisServer.shared();
        assertThat(RedisServer.shared()).isSameAs(shared);

        shared.close();
        assertThat(shared.isRunning()).isTrue();
        assertThat(call(shared, "PING")).isEqualTo("PONG");

        shared.kill();
        assertThat(RedisServer.shared()).isSameAs(shared);
        assertThat(shared.isRunning()).isTrue();
    }

    @Test
    void theBundledBinaryRunsLuaWithServerTime() throws IOException {
        RedisBinaries.Binary bundled = RedisBinaries.bundled();
        assertThat(bundled.isBundled()).isTrue();
        assertThat(bundled.version()).isEqualTo(RedisBinaries.BUNDLED_VERSION);
        assertThat(bundled.cli()).isEmpty();

        try (RedisServer redis = RedisServer.start(bundled, List.of(), RedisProcesses::freePort, false)) {
            assertThat(redis.binary()).isEqualTo(bundled.server());
            assertThat(redis.version()).isEqualTo("7.0.15");

            assertThat(call(redis, "EVAL", "return redis.call('TIME')", "0"))
                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                    .hasSize(2)
                    .allSatisfy(part -> assertThat((String) part).containsOnlyDigits());
            String sha = (String) call(redis, "SCRIPT", "LOAD", "return redis.call('TIME')");
            assertThat(call(redis, "EVALSHA", sha, "0"))
                    .asInstanceOf(InstanceOfAssertFactories.LIST)
                    .hasSize(2);

            redis.kill();
            redis.restart();
            assertThat(call(redis, "PING")).isEqualTo("PONG");
        }
    }

    @Test
    void systemPropertiesChooseTheBinary() {
        String installed = System.getProperty(RedisBinaries.SERVER_PROPERTY);
        String bundled = System.getProperty(RedisBinaries.BUNDLED_PROPERTY);
        try {
            System.clearProperty(RedisBinaries.SERVER_PROPERTY);
            System.setProperty(RedisBinaries.BUNDLED_PROPERTY, "true");
            assertThat(RedisBinaries.resolve()).isEqualTo(RedisBinaries.bundled());

            System.setProperty(
                    RedisBinaries.SERVER_PROPERTY,
                    RedisBinaries.bundled().server().toString());
            assertThat(RedisBinaries.resolve().server())
                    .isEqualTo(RedisBinaries.bundled().server());
            assertThat(RedisBinaries.resolve().isBundled()).isFalse();

            System.setProperty(RedisBinaries.SERVER_PROPERTY, "/no/such/redis-server");
            assertThatThrownBy(RedisBinaries::resolve)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("/no/such/redis-server");
        } finally {
            restore(RedisBinaries.SERVER_PROPERTY, installed);
            restore(RedisBinaries.BUNDLED_PROPERTY, bundled);
        }
    }

    @Test
    void bundlesABinaryForLinuxAndMacOnX86AndArm() {
        assertThat(RedisBinaries.bundledResource("Linux", "amd64")).isEqualTo("redis-server-7.0.15-linux-amd64");
        assertThat(RedisBinaries.bundledResource("Mac OS X", "aarch64")).isEqualTo("redis-server-7.0.15-darwin-arm64");
        for (String resource : List.of(
                RedisBinaries.bundledResource("Linux", "amd64"),
                RedisBinaries.bundledResource("Linux", "aarch64"),
                RedisBinaries.bundledResource("Mac OS X", "x86_64"),
                RedisBinaries.bundledResource("Mac OS X", "aarch64"))) {
            assertThat(getClass().getClassLoader().getResource(resource))
                    .as(resource)
                    .isNotNull();
        }
        assertThatThrownBy(() -> RedisBinaries.bundledResource("Windows 11", "amd64"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Windows 11");
    }

    @Test
    void comparesVersionsNumerically() {
        assertThat(RedisBinaries.compareVersions("6.10", "6.2")).isPositive();
        assertThat(RedisBinaries.compareVersions("6.2.0", "6.2")).isZero();
        assertThat(RedisBinaries.compareVersions("6.0.16", "6.2")).isNegative();
    }

    @Test
    void bundledBinaryIsAnExecutableFileOfItsOwn() {
        Path server = RedisBinaries.bundled().server();
        assertThat(server.getFileName()).hasToString("redis-server");
        assertThat(Files.isExecutable(server)).isTrue();
    }

    static Object call(RedisServer redis, String... command) throws IOException {
        try (RespClient client = RespClient.connect(redis.host(), redis.port(), Duration.ofSeconds(5))) {
            return client.call(command);
        }
    }

    private static long pid(RedisServer redis) throws IOException {
        String info = (String) call(redis, "INFO", "server");
        return info.lines()
                .filter(line -> line.startsWith("process_id:"))
                .mapToLong(line -> Long.parseLong(line.substring("process_id:".length())))
                .findFirst()
                .orElseThrow();
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
