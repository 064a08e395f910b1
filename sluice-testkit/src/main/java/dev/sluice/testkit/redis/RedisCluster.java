package dev.sluice.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of masters without replicas, each a {@link RedisServer} of its own on free ports of
 * 127.0.0.1, for tests that need keys spread over several nodes.
 *
 * <p>{@link #start(int)} returns once every node reports {@code cluster_state:ok}, knows every other node and
 * sees all 16384 slots assigned. Slots are split evenly, in order: the first node holds the lowest slots. A
 * node can be killed and restarted through {@link #nodes()}; it keeps its place in the cluster.
 *
 * <p>Thread-safe.
 */
public final class RedisCluster implements AutoCloseable {
    /** The number of hash slots in a Redis Cluster. */
    public static final int SLOTS = 16_384;

    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Redis's default node timeout (15 s): with 2 s, one long call on a loaded machine (the queue contract adds
     * 100,000 jobs in one atomic bulk) kept a node from answering its peers' pings for longer, they marked it
     * failed, and every other node refused its own slots with CLUSTERDOWN for several seconds after.
     */
    private static final List<String> NODE_ARGS = List.of(
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "15000");

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Starts a cluster of {@code masters} masters and returns once it serves every slot.
     *
     * @param masters the number of nodes, from 1 to 100
     * @return the formed cluster, to close after use
     * @throws IllegalArgumentException if {@code masters} is not between 1 and 100
     * @throws IllegalStateException if a node does not start, or the cluster does not form within 30 s
     */
    public static RedisCluster start(int masters) {
        RedisBinaries.Binary binary = RedisBinaries.resolve();
        return start(masters, binary, binary.cli().isPresent() && masters >= 3);
    }

    /**
     * Starts a cluster from the given binary, formed by {@code redis-cli --cluster create} if {@code useCli}, else
     * by assigning slots and introducing the nodes to each other here.
     */
    static RedisCluster start(int masters, RedisBinaries.Binary binary, boolean useCli) {
        if (masters < 1 || masters > 100) {
            throw new IllegalArgumentException("a cluster needs 1 to 100 masters, not " + masters);
        }
        if (useCli && (binary.cli().isEmpty() || masters < 3)) {
            throw new IllegalArgumentException(
                    "redis-cli forms clusters of 3 or more masters only, and needs redis-cli next to "
                            + binary.server());
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisServer.start(binary, NODE_ARGS, RedisProcesses::freeClusterPort, false));
            }
            RedisCluster cluster = new RedisCluster(nodes);
            if (useCli) {
                cluster.formWithCli(binary.cli().orElseThrow());
            } else {
                cluster.formByHand();
            }
            cluster.awaitFormed();
            return cluster;
        } catch (RuntimeException | Error e) {
            closeAll(nodes, e);
            throw e;
        }
    }

    /**
     * The nodes' addresses as Redis URIs ({@code redis://127.0.0.1:<port>}), in slot order.
     *
     * @return one URI per node
     */
    public List<String> uris() {
        return nodes.stream().map(RedisServer::uri).toList();
    }

    /**
     * The nodes' ports, in slot order.
     *
     * @return one port per node
     */
    public List<Integer> ports() {
        return nodes.stream().map(RedisServer::port).toList();
    }

    /**
     * The nodes, in slot order: the first holds the lowest slots.
     *
     * @return the nodes, an unmodifiable list
     */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Kills every node and deletes its directory. Idempotent. */
    @Override
    public void close() {
        closeAll(nodes, null);
    }

    @Override
    public String toString() {
        return "RedisCluster" + ports();
    }

    private void formWithCli(Path cli) {
        List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
        for (RedisServer node : nodes) {
            command.add(node.host() + ":" + node.port());
        }
        command.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Path output = nodes.getFirst().dir().resolve("cluster-create.log");
        try {
            Process process = RedisProcesses.start(
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()));
            process.getOutputStream().close();
            if (!process.waitFor(FORM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish within "
                        + FORM_TIMEOUT.toSeconds() + " s; its output ends with:\n" + RedisProcesses.tail(output, 30));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create exited with " + process.exitValue()
                        + "; its output ends with:\n" + RedisProcesses.tail(output, 30));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while forming " + this, e);
        }
    }

    private void formByHand() {
        int count = nodes.size();
        for (int i = 0; i < count; i++) {
            int first = SLOTS * i / count;
            int last = SLOTS * (i + 1) / count - 1;
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = first; slot <= last; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            // distinct epochs spare the nodes a round of resolving equal ones before the cluster is ok
            call(nodes.get(i), "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            call(nodes.get(i), addSlots.toArray(String[]::new));
        }
        RedisServer first = nodes.getFirst();
        for (RedisServer node : nodes.subList(1, count)) {
            call(first, "CLUSTER", "MEET", node.host(), Integer.toString(node.port()));
        }
    }

    private void awaitFormed() {
        long deadline = System.nanoTime() + FORM_TIMEOUT.toNanos();
        Map<Integer, String> lastInfo = new LinkedHashMap<>();
        while (true) {
            boolean formed = true;
            for (RedisServer node : nodes) {
                String info = clusterInfoOrError(node);
                lastInfo.put(node.port(), info);
                formed &= isFormed(info);
            }
            if (formed) {
                return;
            }
            if (System.nanoTime() > deadline) {
                StringBuilder message = new StringBuilder("the cluster of ports " + ports() + " did not form within "
                        + FORM_TIMEOUT.toSeconds() + " s. CLUSTER INFO of each node:");
                lastInfo.forEach((port, info) ->
                        message.append("\n--- ").append(port).append(":\n").append(info.strip()));
                throw new IllegalStateException(message.toString());
            }
            RedisProcesses.sleep(Duration.ofMillis(50));
        }
    }

    private boolean isFormed(String clusterInfo) {
        List<String> lines = clusterInfo.lines().toList();
        return lines.contains("cluster_state:ok")
                && lines.contains("cluster_slots_assigned:" + SLOTS)
                && lines.contains("cluster_known_nodes:" + nodes.size());
    }

    private static String clusterInfoOrError(RedisServer node) {
        try (RespClient client = RespClient.connect(node.host(), node.port(), COMMAND_TIMEOUT)) {
            return client.callString("CLUSTER", "INFO");
        } catch (IOException e) {
            return "(no answer: " + e + ")";
        }
    }

    private static void call(RedisServer node, String... command) {
        try (RespClient client = RespClient.connect(node.host(), node.port(), COMMAND_TIMEOUT)) {
            client.call(command);
        } catch (IOException e) {
            throw new IllegalStateException(
                    command[0] + " " + command[1] + " failed on " + node + ": " + e.getMessage()
                            + "; its output ends with:\n" + node.logTail(),
                    e);
        }
    }

    private static void closeAll(List<RedisServer> nodes, Throwable failure) {
        RuntimeException closeFailure = null;
        for (RedisServer node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (closeFailure == null) {
                    closeFailure = e;
                } else {
                    closeFailure.addSuppressed(e);
                }
            }
        }
        if (closeFailure != null) {
            throw closeFailure;
        }
    }
}
