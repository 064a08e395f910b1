package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What open dashboards cost Redis: while a modest workload runs (a producer adding {@value #JOBS_PER_SECOND} jobs a
 * second, a worker of {@value #CONCURRENCY} completing them), 0, 1 and {@value #MANY} dashboards hold the live event
 * stream ({@code GET /api/v1/dashboard/events}) open; over each window Redis's CPU ({@code used_cpu_sys +
 * used_cpu_user} from {@code INFO CPU}) changes by some seconds, read as milliseconds of CPU per second. The order
 * of the three rotates each round, so that drift on the shared machine falls on each alike.
 */
final class ServerDashboards {
    static final int MANY = 50;
    private static final int JOBS_PER_SECOND = 100;
    private static final int CONCURRENCY = 4;
    private static final int[] VIEWERS = {0, 1, MANY};

    /** One window: the dashboards open, Redis's CPU per second of it, and the snapshots each stream got a second. */
    record Reading(int dashboards, int round, double redisCpuMsPerSecond, double eventsPerStreamPerSecond) {}

    private final Sluice sluice;
    private final URI server;
    private final String redisUrl;
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    ServerDashboards(Sluice sluice, URI server, String redisUrl) {
        this.sluice = sluice;
        this.server = server;
        this.redisUrl = redisUrl;
    }

    List<Reading> measure(int seconds, int rounds) throws Exception {
        JobQueue<String> queue = sluice.queue(
                "dashboard-load",
                Codec.utf8(),
                QueueOptions.builder()
                        .jobDefaults(JobOptions.builder()
                                .keepCompleted(Retention.keepLast(1_000))
                                .build())
                        .build());
        List<Reading> readings = new ArrayList<>();
        RedisClient client = RedisClient.create(redisUrl);
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        try (StatefulRedisConnection<String, String> redis = client.connect();
                Worker<String> worker = queue.worker(job -> Result.done(), WorkerOptions.concurrency(CONCURRENCY))) {
            producer.scheduleAtFixedRate(
                    () -> {
                        for (int i = 0; i < JOBS_PER_SECOND / 10; i++) {
                            queue.add("load", "x".repeat(100));
                        }
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
            Thread.sleep(5_000); // the workload settles before the first window
            for (int round = 1; round <= rounds; round++) {
                for (int k = 0; k < VIEWERS.length; k++) {
                    int viewers = VIEWERS[(k + round - 1) % VIEWERS.length];
                    Reading reading = window(redis, viewers, round, seconds);
                    System.out.printf(
                            Locale.ROOT,
                            "dashboards %d, round %d: Redis CPU %.1f ms/s, %.2f snapshots per stream a second%n",
                            viewers,
                            round,
                            reading.redisCpuMsPerSecond(),
                            reading.eventsPerStreamPerSecond());
                    readings.add(reading);
                }
            }
        } finally {
            producer.shutdownNow();
            producer.awaitTermination(5, TimeUnit.SECONDS);
            client.shutdown();
        }
        queue.obliterate(true);
        return readings;
    }

    /** Opens {@code viewers} event streams, waits for the first snapshot on each, then reads Redis's CPU over a window. */
    private Reading window(StatefulRedisConnection<String, String> redis, int viewers, int round, int seconds)
            throws Exception {
        AtomicLong events = new AtomicLong();
        CountDownLatch first = new CountDownLatch(viewers);
        List<InputStream> streams = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < viewers; i++) {
            InputStream body = http.send(
                            HttpRequest.newBuilder(server.resolve("/api/v1/dashboard/events"))
                                    .header("Accept", "text/event-stream")
                                    .build(),
                            HttpResponse.BodyHandlers.ofInputStream())
                    .body();
            streams.add(body);
            readers.add(Thread.ofVirtual().start(() -> read(body, events, first)));
        }
        if (!first.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not every stream got a snapshot within 30 s");
        }
        Thread.sleep(2_000); // past the streams' start
        long eventsBefore = events.get();
        double cpuBefore = cpuSeconds(redis);
        long start = System.nanoTime();
        Thread.sleep(seconds * 1_000L); // the measured window
        double cpuAfter = cpuSeconds(redis);
        double elapsed = (System.nanoTime() - start) / 1e9;
        long eventsInWindow = events.get() - eventsBefore;
        for (InputStream stream : streams) {
            stream.close();
        }
        for (Thread reader : readers) {
            reader.join(Duration.ofSeconds(10));
        }
        Thread.sleep(2_000); // the server notices the closed streams before the next window
        return new Reading(
                viewers,
                round,
                (cpuAfter - cpuBefore) * 1000 / elapsed,
                viewers == 0 ? 0 : eventsInWindow / (double) viewers / elapsed);
    }

    private static void read(InputStream body, AtomicLong events, CountDownLatch first) {
        boolean seen = false;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("event: snapshot")) {
                    events.incrementAndGet();
                    if (!seen) {
                        seen = true;
                        first.countDown();
                    }
                }
            }
        } catch (IOException closed) {
            // the window ended and the stream was closed
        }
    }

    private static double cpuSeconds(StatefulRedisConnection<String, String> redis) {
        double total = 0;
        for (String line : redis.sync().info("cpu").split("\r?\n")) {
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                total +=
                        Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    static void print(List<Reading> readings, int seconds) {
        System.out.println();
        System.out.printf(
                "Open dashboards on Redis: Redis CPU (used_cpu_sys + used_cpu_user) per second over %d s windows,"
                        + " medians of %d rounds%n%n",
                seconds, readings.stream().mapToInt(Reading::round).max().orElse(0));
        System.out.println(
                "| dashboards open | Redis CPU, ms per s | above 0 dashboards | snapshots per stream a second" + " |");
        System.out.println("|---|---|---|---|");
        double none = median(readings, 0, Reading::redisCpuMsPerSecond);
        for (int viewers : VIEWERS) {
            double cpu = median(readings, viewers, Reading::redisCpuMsPerSecond);
            System.out.printf(
                    Locale.ROOT,
                    "| %d | %.1f | %+.1f | %s |%n",
                    viewers,
                    cpu,
                    cpu - none,
                    viewers == 0
                            ? "-"
                            : String.format(
                                    Locale.ROOT, "%.2f", median(readings, viewers, Reading::eventsPerStreamPerSecond)));
        }
    }

    private static double median(
            List<Reading> readings, int viewers, java.util.function.ToDoubleFunction<Reading> what) {
        return ServerBench.median(readings.stream()
                .filter(r -> r.dashboards() == viewers)
                .mapToDouble(what)
                .toArray());
    }
}
