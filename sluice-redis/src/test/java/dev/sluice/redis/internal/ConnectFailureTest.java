package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/**
 * Regression: a wrong password, no password and a bad database number all read "Unable to connect to
 * 127.0.0.1/<unresolved>:PORT"; the server's answer was only in the cause chain, as Lettuce wraps it.
 */
class ConnectFailureTest {
    private static String messageOf(Throwable serverAnswer) {
        return ConnectFailure.of(
                        "redis://********@127.0.0.1:6379",
                        new RedisConnectionException("Unable to connect to 127.0.0.1/<unresolved>:6379", serverAnswer))
                .getMessage();
    }

    @Test
    void namesTheServersAnswerAndWhatToChangeInTheUrl() {
        assertThat(messageOf(new RedisCommandExecutionException("WRONGPASS invalid username-password pair")))
                .startsWith("cannot connect to Redis (redis://********@127.0.0.1:6379): WRONGPASS")
                .contains("password in the URL is wrong");
        assertThat(messageOf(new RedisCommandExecutionException(
                        "NOAUTH HELLO must be called with the client already" + " authenticated")))
                .contains("NOAUTH")
                .contains("needs a password");
        assertThat(messageOf(new RedisCommandExecutionException("ERR DB index is out of range")))
                .contains("DB index is out of range")
                .contains("database number");
    }

    @Test
    void namesARefusedConnectionOrElseTheDeepestCause() {
        assertThat(messageOf(new ConnectException("Connection refused: /127.0.0.1:6379")))
                .contains("Connection refused")
                .contains("no Redis listens there");
        assertThat(messageOf(new IllegalStateException("RedisHandshakeHandler not registered")))
                .endsWith(": RedisHandshakeHandler not registered");
    }
}
