package dev.sluice.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(90)
@Tag("slow")
class RedisClusterTest {
    @Test
    void threeMastersFormAClusterThatServesEverySlot() throws IOException {
        List<Long> pids;
        List<Path> dirs;
        try (RedisCluster cluster = RedisCluster.start(3)) {
            assertFormed(cluster);
            pids = pids(cluster);
            dirs = cluster.nodes().stream().map(RedisServer::dir).toList();
        }
        assertGone(pids, dirs);
    }

    @Test
    void withoutRedisCliTheBundledBinaryFormsTheClusterByHand() throws IOException {
        List<Long> pids;
        try (RedisCluster cluster = RedisCluster.start(3, RedisBinaries.bundled(), false)) {
            assertFormed(cluster);
            assertThat(RedisServerTest.call(cluster.nodes().getFirst(), "CLUSTER", "COUNTKEYSINSLOT", "0"))
                    .isEqualTo(0L);
            assertThat(RedisServerTest.call(cluster.nodes().getLast(), "CLUSTER", "KEYSLOT", "x"))
                    .isEqualTo(16287L);
            assertThat(RedisServerTest.call(cluster.nodes().getLast(), "SET", "x", "1"))
                    .isEqualTo("OK");
            assertThatThrownBy(() -> RedisServerTest.call(cluster.nodes().getFirst(), "SET", "x", "1"))
                    .isInstanceOf(RespClient.ErrorReply.class)
                    .hasMessageStartingWith(
                            "MOVED 16287 127.0.0.1:" + cluster.ports().getLast());
            pids = pids(cluster);
        }
        assertGone(pids, List.of());
    }

    @Test
    void refusesAClusterOfNoMasters() {
        assertThatThrownBy(() -> RedisCluster.start(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    private static void assertFormed(RedisCluster cluster) throws IOException {
        assertThat(cluster.ports()).hasSize(3).doesNotHaveDuplicates().doesNotContain(6379);
        assertThat(cluster.uris())
                .containsExactlyElementsOf(cluster.ports().stream()
                        .map(port -> "redis://127.0.0.1:" + port)
                        .toList());
        for (RedisServer node : cluster.nodes()) {
            List<String> info = ((String) RedisServerTest.call(node, "CLUSTER", "INFO"))
                    .lines()
                    .toList();
            assertThat(info)
                    .as("CLUSTER INFO of %s", node)
                    .contains(
                            "cluster_state:ok",
                            "cluster_slots_assigned:16384",
                            "cluster_slots_ok:16384",
                            "cluster_known_nodes:3",
                            "cluster_size:3");
        }
        List<?> slots = (List<?>) RedisServerTest.call(cluster.nodes().getFirst(), "CLUSTER", "SLOTS");
        long covered = slots.stream()
                .map(range -> (List<?>) range)
                .mapToLong(range -> (Long) range.get(1) - (Long) range.get(0) + 1)
                .sum();
        assertThat(covered).isEqualTo(RedisCluster.SLOTS);
    }

    private static List<Long> pids(RedisCluster cluster) throws IOException {
        List<Long> pids = new ArrayList<>();
        for (RedisServer node : cluster.nodes()) {
            String info = (String) RedisServerTest.call(node, "INFO", "server");
            info.lines()
                    .filter(line -> line.startsWith("process_id:"))
                    .forEach(line -> pids.add(Long.parseLong(line.substring("process_id:".length()))));
        }
        assertThat(pids).hasSize(3);
        return pids;
    }

    private static void assertGone(List<Long> pids, List<Path> dirs) {
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                    .as("redis-server pid %d", pid)
                    .isEmpty();
        }
        for (Path dir : dirs) {
            assertThat(dir).doesNotExist();
        }
    }
}
