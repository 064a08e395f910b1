package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What rates cost Redis per processed job: N waiting jobs processed at concurrency C, with no rate, with an exact
 * sliding-log queue rate too high to throttle, in 10 groups, and in 10 groups each with such a rate, three rounds
 * of each in turn; Redis CPU is the queue
 * library's calls' own time (INFO commandstats, FCALL or EVALSHA), per job. bench/run-queue-rate-cost.sh runs it
 * with the engines of two commits side by side.
 *
 * <p>Arguments: the Redis URL (its data and functions are flushed), N, a label for the printed lines, and C
 * (100 if not given).
 */
public final class QueueRateCost {
    private QueueRateCost() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int n = Integer.parseInt(args[1]);
        String label = args[2];
        int concurrency = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        RedisClient client = RedisClient.create(url);
        RedisCommands<String, String> admin = client.connect().sync();
        admin.flushall();
        admin.functionFlush(io.lettuce.core.FlushMode.SYNC);
        for (int round = 0; round < 3; round++) {
            for (String variant : List.of("plain", "rate", "groups", "group-rates")) {
                try (Sluice sluice = RedisSluice.builder()
                        .url(url)
                        .keyPrefix("rc" + round + variant)
                        .build()) {
                    RatePolicy never = SlidingWindowLog.of(1_000_000, Duration.ofSeconds(1));
                    QueueOptions.Builder options = QueueOptions.builder().maxQueued(1_000_000);
                    if (variant.equals("rate")) {
                        options.rate(never);
                    } else if (variant.equals("group-rates")) {
                        options.groupDefaults(GroupLimits.builder().rate(never).build());
                    }
                    boolean grouped = variant.startsWith("group");
                    JobQueue<String> queue = sluice.queue("q", Codec.utf8(), options.build());
                    List<NewJob<String>> bulk = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        JobOptions in = grouped
                                ? JobOptions.builder().group("g" + i % 10).build()
                                : JobOptions.empty();
                        bulk.add(new NewJob<>("n", "p" + i, in));
                        if (bulk.size() == 500) {
                            queue.addBulk(bulk);
                            bulk.clear();
                        }
                    }
                    admin.configResetstat();
                    AtomicInteger done = new AtomicInteger();
                    long t0 = System.nanoTime();
                    try (Worker<String> worker = queue.worker(
                            ctx -> {
                                done.incrementAndGet();
                                return Result.done();
                            },
                            WorkerOptions.concurrency(concurrency))) {
                        while (done.get() < n) {
                            Thread.sleep(20);
                        }
                    }
                    long took = System.nanoTime() - t0;
                    String stats = admin.info("commandstats");
                    double usec = 0;
                    double calls = 0;
                    for (String line : stats.split("\r?\n")) {
                        if (line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:")) {
                            for (String part :
                                    line.substring(line.indexOf(':') + 1).split(",")) {
                                if (part.startsWith("usec=")) {
                                    usec += Double.parseDouble(part.substring(5));
                                } else if (part.startsWith("calls=")) {
                                    calls += Double.parseDouble(part.substring(6));
                                }
                            }
                        }
                    }
                    System.out.printf(
                            "%s round %d %s: %.1f us Redis per job, %.0f jobs/s, %.2f calls per job%n",
                            label, round, variant, usec / n, n / (took / 1e9), calls / n);
                }
            }
        }
        client.shutdown();
    }
}
