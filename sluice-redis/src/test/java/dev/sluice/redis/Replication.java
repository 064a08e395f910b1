package dev.sluice.redis;

import static org.awaitility.Awaitility.await;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/** Looks at, and holds up, the replication between the redis-servers of a test. */
final class Replication {
    private Replication() {}

    /** Client threads for every question the tests ask, so that a question does not start threads of its own. */
    static final ClientResources RESOURCES = DefaultClientResources.create();

    /** What {@code redis} answers to {@code command}, over a connection of its own. */
    static <R> R ask(RedisServer redis, Function<RedisCommands<String, String>, R> command) {
        RedisClient client = RedisClient.create(RESOURCES, redis.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return command.apply(connection.sync());
        } finally {
            client.shutdown();
        }
    }

    /** Waits until {@code replica} is linked to its master and has caught up with it. */
    static void awaitLinked(RedisServer replica) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> ask(replica, c -> c.info("replication")).contains("master_link_status:up"));
    }

    /**
     * Stops the process of {@code redis} (SIGSTOP): it keeps its connections but reads and answers nothing until
     * the returned handle is closed (SIGCONT).
     */
    static Frozen freeze(RedisServer redis) {
        String info = ask(redis, c -> c.info("server"));
        long pid = Long.parseLong(info.lines()
                .filter(line -> line.startsWith("process_id:"))
                .findFirst()
                .orElseThrow()
                .substring("process_id:".length())
                .trim());
        signal(pid, "-STOP");
        return new Frozen(pid);
    }

    /** A process {@link #freeze frozen}; {@link #close()} lets it go on. */
    record Frozen(long pid) implements AutoCloseable {
        @Override
        public void close() {
            signal(pid, "-CONT");
        }
    }

    private static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid))
                    .inheritIO()
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " exited with " + kill.exitValue());
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run kill " + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + signal + " to " + pid, e);
        }
    }

    /** The ids of the clients of {@code master} held up in a WAIT. */
    static List<Long> clientsInWait(RedisServer master) {
        return ask(master, c -> c.clientList())
                .lines()
                .filter(line -> line.contains(" cmd=wait ") && line.matches(".* flags=[A-Za-z]*b.*"))
                .map(line -> Long.parseLong(line.substring(3, line.indexOf(' '))))
                .toList();
    }

    /** Drops the connection of client {@code id} of {@code redis}. */
    static void killClient(RedisServer redis, long id) {
        ask(redis, c -> c.clientKill(KillArgs.Builder.id(id)));
    }

    /** Whether {@code redis} holds job {@code id} of queue {@code queue} (keys of prefix {@code prefix}). */
    static boolean holdsJob(RedisServer redis, String prefix, String queue, String id) {
        return ask(redis, c -> c.hexists(prefix + ":queue:{" + queue + "}:j", id));
    }
}
