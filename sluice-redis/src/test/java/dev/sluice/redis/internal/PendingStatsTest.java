package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.Histogram;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingStatsTest {
    private final PendingStats stats = new PendingStats();

    @Test
    void timesCountPerBucketAndKeepTheLargestForTheQueueAndTheScope() {
        stats.time("u", 'w', 100);
        stats.time("u", 'w', 1_000);
        stats.time("gA", 'p', 5_000_000);
        stats.time("gA", 'p', -3);

        assertThat(entries(stats.take()))
                .containsExactlyInAnyOrder(
                        "q w " + Histogram.bucket(100) + " 1",
                        "q w " + Histogram.bucket(1_000) + " 1",
                        "u w " + Histogram.bucket(100) + " 1",
                        "u w " + Histogram.bucket(1_000) + " 1",
                        "q W 0 1000",
                        "u W 0 1000",
                        "q p " + Histogram.bucket(5_000_000) + " 1",
                        "gA p " + Histogram.bucket(5_000_000) + " 1",
                        "q p 0 1",
                        "gA p 0 1",
                        "q P 0 5000000",
                        "gA P 0 5000000");
        assertThat(stats.take()).isEmpty();
    }

    @Test
    void completionsCountPerSecondWhateverTheOrderTheyCameIn() {
        stats.completed("gA", 5);
        stats.completed("gA", 6);
        stats.completed("gA", 5);
        stats.completed("u", 6);

        assertThat(entries(stats.take()))
                .containsExactlyInAnyOrder("q s 5 2", "q s 6 2", "gA s 5 2", "gA s 6 1", "u s 6 1");
    }

    @Test
    void whatIsPutBackIsTakenAgainWithWhatCameSince() {
        stats.time("u", 'p', 1_000);
        stats.completed("u", 7);
        List<String> taken = stats.take();

        stats.time("u", 'p', 2_000);
        stats.time("u", 'p', 1_000);
        stats.completed("u", 7);
        stats.putBack(taken);

        assertThat(entries(stats.take()))
                .containsExactlyInAnyOrder(
                        "q p " + Histogram.bucket(1_000) + " 2",
                        "u p " + Histogram.bucket(1_000) + " 2",
                        "q p " + Histogram.bucket(2_000) + " 1",
                        "u p " + Histogram.bucket(2_000) + " 1",
                        "q P 0 2000",
                        "u P 0 2000",
                        "q s 7 2",
                        "u s 7 2");
    }

    private static List<String> entries(List<String> args) {
        assertThat(args.size() % 4).isZero();
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < args.size(); i += 4) {
            entries.add(String.join(" ", args.subList(i, i + 4)));
        }
        return entries;
    }
}
