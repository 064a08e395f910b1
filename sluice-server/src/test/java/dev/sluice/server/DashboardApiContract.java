package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's snapshot, history and event stream over real HTTP, held to one behaviour on every engine: each
 * subclass gives an engine. The engine is wrapped so that the tests count its reads: each snapshot lists the
 * queues exactly once, so listings count snapshot builds as the engine sees them.
 */
abstract class DashboardApiContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<InputStream> streams = new CopyOnWriteArrayList<>();

    Sluice engine;
    final AtomicInteger listings = new AtomicInteger();
    SluiceServer server;

    /** A new, empty engine. */
    abstract Sluice newEngine();

    @BeforeEach
    void start() {
        engine = newEngine();
        Sluice counted = (Sluice) Proxy.newProxyInstance(
                Sluice.class.getClassLoader(), new Class<?>[] {Sluice.class}, (proxy, method, args) -> {
                    if (method.getName().equals("queueNames")) {
                        listings.incrementAndGet();
                    }
                    try {
                        return method.invoke(engine, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        server = SluiceServer.builder(counted).port(0).start();
    }

    @AfterEach
    void stop() throws IOException {
        for (InputStream stream : streams) {
            stream.close();
        }
        server.close();
        engine.close();
    }

    JsonNode get(String path) throws IOException, InterruptedException {
        return JSON.readTree(send("GET", path).body());
    }

    HttpResponse<String> send(String method, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(server.uri().resolve(path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** An open event stream: the events it has read so far, as "event id" pairs such as "snapshot 3". */
    final class Stream {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Long> ids = new CopyOnWriteArrayList<>();
        final String contentType;
        volatile boolean ended;

        Stream(String lastEventId) throws IOException, InterruptedException {
            HttpRequest.Builder request = HttpRequest.newBuilder(server.uri().resolve("/api/v1/dashboard/events"));
            if (lastEventId != null) {
                request.header("Last-Event-ID", lastEventId);
            }
            HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            contentType = response.headers().firstValue("Content-Type").orElse("");
            InputStream body = response.body();
            streams.add(body);
            Thread.ofVirtual().start(() -> read(body));
        }

        private void read(InputStream body) {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                String id = null;
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.startsWith("id: ")) {
                        id = line.substring(4);
                    } else if (line.startsWith("event: ")) {
                        events.add(line.substring(7) + (id == null ? "" : " " + id));
                        if (id != null) {
                            ids.add(Long.parseLong(id));
                        }
                        id = null;
                    }
                }
            } catch (IOException closed) {
                // the test or the server closed it
            }
            ended = true;
        }

        void close() throws IOException {
            streams.get(streams.size() - 1).close();
        }
    }

    private static JsonNode queue(JsonNode snapshot, String name) {
        for (JsonNode queue : snapshot.get("queues")) {
            if (queue.get("name").asText().equals(name)) {
                return queue;
            }
        }
        throw new AssertionError("no queue " + name + " in " + snapshot);
    }

    @Test
    void theSnapshotTellsCountsWordsTopGroupsWorkersAndTheJvm() throws Exception {
        JobQueue<String> mail = engine.queue("mail", Codec.utf8());
        mail.add("n", "a1", JobOptions.builder().jobId("a1").group("acme").build());
        mail.add("n", "a2", JobOptions.builder().jobId("a2").group("acme").build());
        mail.add("n", "g1", JobOptions.builder().jobId("g1").group("globex").build());
        mail.worker(
                        ctx -> "acme".equals(ctx.job().group())
                                ? Result.rateLimited(Result.Scope.GROUP, Duration.ofHours(1))
                                : Result.done(),
                        WorkerOptions.manual())
                .runDue();
        // attached, with nothing it may run: acme waits for its pause
        mail.worker(ctx -> Result.done(), WorkerOptions.concurrency(2));

        JsonNode snapshot = get("/api/v1/dashboard/snapshot");

        JsonNode queue = queue(snapshot, "mail");
        assertThat(queue.get("counts").get("waiting").asLong()).isEqualTo(2);
        assertThat(queue.get("counts").get("completed").asLong()).isEqualTo(1);
        assertThat(queue.get("word").asText()).isEqualTo("rate-limited");
        Instant until = Instant.parse(queue.get("until").asText());
        assertThat(until).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
        JsonNode acme = queue.get("groups").get("top").get(0);
        assertThat(acme.get("name").asText()).isEqualTo("acme");
        assertThat(acme.get("word").asText()).isEqualTo("rate-limited");
        assertThat(acme.get("until").asText()).isEqualTo(until.toString());
        assertThat(acme.get("mayStart").asBoolean()).isFalse();
        assertThat(queue.get("groups").get("top").get(1).get("word").asText()).isEqualTo("idle");
        assertThat(queue.get("workers")).hasSize(1);
        assertThat(queue.get("slots").asInt()).isEqualTo(2);
        assertThat(queue.get("waitTime").get("count").asLong()).isPositive();
        assertThat(queue.get("point").get("waiting").asLong()).isEqualTo(2);
        assertThat(snapshot.get("engine").get("jvm").get("heapMaxBytes").asLong())
                .isPositive();
        assertThat(snapshot.get("id").asLong()).isEqualTo(1);
    }

    @Test
    void theSnapshotShowsEachLimitersPolicyAndDecisionsTheMostThrottledFirst() throws Exception {
        RateLimiter calm = engine.limiter("calm", FixedWindow.of(100, Duration.ofHours(1)));
        RateLimiter tight = engine.limiter("tight", FixedWindow.of(2, Duration.ofHours(1)));
        get("/api/v1/dashboard/snapshot"); // the first snapshot: rates count from here
        for (int i = 0; i < 5; i++) {
            calm.tryAcquire("k", 1);
            tight.tryAcquire("k", 1);
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> {
            JsonNode rows = get("/api/v1/dashboard/snapshot").get("limiters");
            return rows.size() == 2 && rows.get(0).get("denied").asLong() == 3;
        });
        JsonNode limiters = get("/api/v1/dashboard/snapshot").get("limiters");

        assertThat(limiters.get(0).get("name").asText()).isEqualTo("tight");
        assertThat(limiters.get(0).get("policy").asText()).isEqualTo("fixed-window");
        assertThat(limiters.get(0).get("parameters").get("limit").asLong()).isEqualTo(2);
        assertThat(limiters.get(0).get("allowed").asLong()).isEqualTo(2);
        assertThat(limiters.get(0).get("denied").asLong()).isEqualTo(3);
        assertThat(limiters.get(1).get("name").asText()).isEqualTo("calm");
        assertThat(limiters.get(1).get("allowed").asLong()).isEqualTo(5);
        assertThat(limiters.get(1).get("denied").asLong()).isZero();
    }

    @Test
    void aPausedAQueueWithoutWorkersAndAnEmptyQueueEachSayWhy() throws Exception {
        engine.queue("held", Codec.utf8()).pause();
        engine.queue("orphan", Codec.utf8()).add("n", "p");
        engine.queue("quiet", Codec.utf8());
        JobQueue<String> tenants = engine.queue("tenants", Codec.utf8());
        tenants.add("n", "p", JobOptions.builder().group("acme").build());
        tenants.pauseGroup("acme");

        JsonNode snapshot = get("/api/v1/dashboard/snapshot");

        assertThat(queue(snapshot, "held").get("word").asText()).isEqualTo("paused");
        assertThat(queue(snapshot, "orphan").get("word").asText()).isEqualTo("stalled");
        assertThat(queue(snapshot, "quiet").get("word").asText()).isEqualTo("idle");
        assertThat(queue(snapshot, "tenants").get("word").asText()).isEqualTo("paused");
        assertThat(queue(snapshot, "tenants").get("until").isNull()).isTrue();
    }

    @Test
    void theGroupsSearchSaysEachGroupsWord() throws Exception {
        JobQueue<String> mail = engine.queue("mail", Codec.utf8());
        mail.add("n", "p", JobOptions.builder().group("acme").build());
        mail.add("n", "p", JobOptions.builder().group("apex").build());
        mail.pauseGroup("apex");

        JsonNode groups = get("/api/v1/queues/mail/groups?prefix=a").get("groups");

        assertThat(groups)
                .extracting(g -> g.get("name").asText() + " " + g.get("word").asText())
                .containsExactly("acme backlogged", "apex paused");
    }

    @Test
    void pollersAtOnceShareOneBuild() throws Exception {
        engine.queue("mail", Codec.utf8()).add("n", "p");
        List<Callable<Long>> polls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            polls.add(() -> get("/api/v1/dashboard/snapshot").get("id").asLong());
        }

        Set<Long> ids = new HashSet<>();
        try (ExecutorService pollers = Executors.newFixedThreadPool(8)) {
            for (Future<Long> id : pollers.invokeAll(polls)) {
                ids.add(id.get());
            }
        }

        // eight polls within a second read the engine once (twice if they straddle a snapshot's first second)
        assertThat(ids.size()).isLessThanOrEqualTo(2);
        assertThat(listings.get()).isEqualTo(ids.size());
    }

    @Test
    void streamsShareOneSnapshotASecondAndStopReadingWhenTheyClose() throws Exception {
        engine.queue("mail", Codec.utf8()).add("n", "p");
        long opened = System.nanoTime();
        List<Stream> viewers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            viewers.add(new Stream(null));
        }

        await().atMost(Duration.ofSeconds(15)).until(() -> viewers.stream().allMatch(v -> v.ids.size() >= 4));
        double seconds = (System.nanoTime() - opened) / 1e9;
        // one build a second for all four viewers (and one at once): four viewers building their own would be 4x
        assertThat((double) listings.get()).isLessThanOrEqualTo(seconds + 2);

        for (Stream viewer : viewers) {
            assertThat(viewer.contentType).startsWith("text/event-stream");
            assertThat(viewer.events.get(0)).isEqualTo("history");
            assertThat(viewer.ids).isSorted().doesNotHaveDuplicates();
        }
        long newest = viewers.stream()
                .mapToLong(v -> v.ids.get(v.ids.size() - 1))
                .max()
                .orElseThrow();
        // every snapshot any viewer saw was built once for all: builds are the ids, not viewers times seconds
        assertThat((long) listings.get()).isBetween(newest, newest + 1);
        Set<Long> common = new HashSet<>(viewers.get(0).ids.subList(1, 4));
        for (Stream viewer : viewers) {
            common.retainAll(viewer.ids);
        }
        assertThat(common).isNotEmpty();

        for (InputStream stream : streams) {
            stream.close();
        }
        int[] last = {-1};
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(1_500))
                .until(() -> {
                    int now = listings.get();
                    boolean still = now == last[0];
                    last[0] = now;
                    return still;
                });
    }

    @Test
    void closingTheServerEndsTheOpenStreams() throws Exception {
        Stream viewer = new Stream(null);
        await().atMost(Duration.ofSeconds(5)).until(() -> viewer.ids.size() >= 1);

        long started = System.nanoTime();
        server.close();

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));
        await().atMost(Duration.ofSeconds(5)).until(() -> viewer.ended);
    }

    @Test
    void aReconnectWithALastEventIdGetsTheLatestSnapshotAtOnce() throws Exception {
        engine.queue("mail", Codec.utf8()).add("n", "p");
        long latest = get("/api/v1/dashboard/snapshot").get("id").asLong();

        Stream again = new Stream("1");

        await().atMost(Duration.ofSeconds(5)).until(() -> again.events.size() >= 2);
        assertThat(again.events.get(0)).isEqualTo("history");
        assertThat(again.ids.get(0)).isGreaterThanOrEqualTo(latest);
    }

    @Test
    void theHistoryHoldsAPointPerSnapshot() throws Exception {
        engine.queue("mail", Codec.utf8()).add("n", "p");
        long first = get("/api/v1/dashboard/snapshot").get("id").asLong();
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> get("/api/v1/dashboard/snapshot").get("id").asLong() > first);

        JsonNode history = get("/api/v1/dashboard/history");

        assertThat(history.get("intervalMs").asLong()).isEqualTo(1_000);
        JsonNode mail = history.get("queues").get("mail");
        assertThat(mail.get("t")).hasSize(listings.get());
        assertThat(mail.get("t").get(1).asDouble())
                .isGreaterThan(mail.get("t").get(0).asDouble());
        assertThat(mail.get("waiting").get(0).asLong()).isEqualTo(1);
    }

    @Test
    void otherMethodsAndRoutesAreProblemsThatNameTheRoutes() throws Exception {
        HttpResponse<String> post = send("POST", "/api/v1/dashboard/snapshot");
        HttpResponse<String> none = send("GET", "/api/v1/dashboard/nope");

        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(none.body()).get("detail").asText()).contains("snapshot", "history", "events");
        assertThat(JSON.readTree(none.body()).get("type").asText()).isEqualTo("urn:sluice:problem:not-found");
        assertThat(listings.get()).isZero();
    }
}
