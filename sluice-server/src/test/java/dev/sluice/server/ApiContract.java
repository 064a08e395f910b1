package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.micrometer.SluiceMetrics;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP API over real HTTP, held to one behaviour on every engine: each subclass gives an engine. */
abstract class ApiContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    Sluice sluice;
    SluiceServer server;

    /** A new, empty engine. */
    abstract Sluice newEngine();

    @BeforeEach
    void start() {
        sluice = newEngine();
        server = SluiceServer.builder(sluice).port(0).start();
    }

    @AfterEach
    void stop() {
        server.close();
        sluice.close();
    }

    /** What one request answered. */
    record Answer(int status, String contentType, JsonNode body) {}

    Answer call(String method, String path) throws IOException, InterruptedException {
        return call(method, path, null);
    }

    Answer call(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(server.uri().resolve(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Answer(
                response.statusCode(),
                response.headers().firstValue("Content-Type").orElse(""),
                JSON.readTree(response.body()));
    }

    private JobQueue<String> mail() {
        return sluice.queue("mail", Codec.utf8());
    }

    @Test
    void listsTheQueuesWithTheirCountsAndWorkers() throws Exception {
        JobQueue<String> mail = mail();
        mail.add("welcome", "ada", JobOptions.builder().jobId("w1").build());
        mail.add(
                "later",
                "bob",
                JobOptions.builder().jobId("d1").delay(Duration.ofHours(1)).build());
        sluice.queue("billing", Codec.utf8());

        Answer answer = call("GET", "/api/v1/queues");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.contentType()).startsWith("application/json");
        JsonNode queues = answer.body().get("queues");
        assertThat(queues).hasSize(2);
        assertThat(queues.get(0).get("name").asText()).isEqualTo("billing");
        JsonNode counts = queues.get(1).get("counts");
        assertThat(counts.get("waiting").asLong()).isEqualTo(1);
        assertThat(counts.get("delayed").asLong()).isEqualTo(1);
        assertThat(queues.get(1).get("workers").asInt()).isZero();
    }

    @Test
    void aQueueThatDoesNotExistIsAProblemAndIsNotCreated() throws Exception {
        Answer answer = call("GET", "/api/v1/queues/typo/jobs?state=failed");

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.body().get("type").asText()).isEqualTo("urn:sluice:problem:queue-not-found");
        assertThat(answer.body().get("status").asInt()).isEqualTo(404);
        assertThat(answer.body().get("detail").asText()).contains("'typo'");
        assertThat(sluice.queueNames()).doesNotContain("typo");
    }

    @Test
    void pagesJobsByStateAndShowsOneWhole() throws Exception {
        JobQueue<String> mail = mail();
        for (int i = 0; i < 5; i++) {
            mail.add("welcome", "p" + i, JobOptions.builder().jobId("j" + i).build());
        }

        Answer page = call("GET", "/api/v1/queues/mail/jobs?state=waiting&offset=1&limit=2");
        Answer job = call("GET", "/api/v1/queues/mail/jobs/j3");

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body().get("jobs"))
                .extracting(j -> j.get("id").asText())
                .containsExactly("j1", "j2");
        assertThat(job.body().get("payload").asText()).isEqualTo("p3");
        assertThat(job.body().get("state").asText()).isEqualTo("waiting");
        assertThat(call("GET", "/api/v1/queues/mail/jobs/nope")
                        .body()
                        .get("type")
                        .asText())
                .isEqualTo("urn:sluice:problem:job-not-found");
    }

    @Test
    void pagesJobsByCursorThatHoldItsPlaceWhileJobsMove() throws Exception {
        JobQueue<String> mail = mail();
        for (int i = 0; i < 5; i++) {
            mail.add("welcome", "p" + i, JobOptions.builder().jobId("j" + i).build());
        }

        Answer first = call("GET", "/api/v1/queues/mail/jobs?state=waiting&limit=2");
        mail.remove("j2");
        mail.add("welcome", "p5", JobOptions.builder().jobId("j5").build());
        String after = first.body().get("next").asText();
        Answer second = call("GET", "/api/v1/queues/mail/jobs?state=waiting&limit=2&cursor=" + after);
        Answer last = call(
                "GET",
                "/api/v1/queues/mail/jobs?state=waiting&limit=2&cursor="
                        + second.body().get("next").asText());

        assertThat(first.body().get("jobs"))
                .extracting(j -> j.get("id").asText())
                .containsExactly("j0", "j1");
        assertThat(second.body().get("jobs"))
                .extracting(j -> j.get("id").asText())
                .containsExactly("j3", "j4");
        assertThat(last.body().get("jobs"))
                .extracting(j -> j.get("id").asText())
                .containsExactly("j5");
        assertThat(last.body().get("next").isNull()).as("no next page").isTrue();
        Answer malformed = call("GET", "/api/v1/queues/mail/jobs?state=waiting&cursor=nope!");
        Answer otherState = call("GET", "/api/v1/queues/mail/jobs?state=failed&cursor=" + after);
        Answer both = call("GET", "/api/v1/queues/mail/jobs?state=waiting&offset=0&cursor=" + after);
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.body().get("type").asText()).isEqualTo("urn:sluice:problem:invalid-request");
        assertThat(malformed.body().get("detail").asText()).contains("cursor", "malformed");
        assertThat(otherState.body().get("detail").asText()).contains("WAITING", "FAILED");
        assertThat(both.status()).isEqualTo(400);
        assertThat(both.body().get("detail").asText()).contains("cursor or offset");
        assertThat(mail.counts().waiting()).isEqualTo(5);
    }

    @Test
    void badParametersAreProblemsThatNameTheAllowedValues() throws Exception {
        mail();

        Answer state = call("GET", "/api/v1/queues/mail/jobs?state=done");
        Answer limit = call("GET", "/api/v1/queues/mail/jobs?state=waiting&limit=0");
        Answer method = call("DELETE", "/api/v1/queues/mail/jobs");
        Answer route = call("GET", "/api/v1/nothing");

        assertThat(state.status()).isEqualTo(400);
        assertThat(state.body().get("detail").asText()).contains("waiting", "failed", "done");
        assertThat(limit.body().get("detail").asText()).contains("limit", "1 to 1000");
        assertThat(method.status()).isEqualTo(405);
        assertThat(route.status()).isEqualTo(404);
        assertThat(route.body().get("type").asText()).isEqualTo("urn:sluice:problem:not-found");
    }

    @Test
    void retriesRemovesAndPromotesJobsAndRefusesWhatTheirStateDoesNotAllow() throws Exception {
        JobQueue<String> mail = mail();
        mail.add("n", "p", JobOptions.builder().jobId("f").attempts(1).build());
        mail.worker(
                        ctx -> {
                            throw new IllegalStateException("boom");
                        },
                        WorkerOptions.manual())
                .runDue();
        mail.add(
                "n",
                "p",
                JobOptions.builder().jobId("d").delay(Duration.ofHours(1)).build());

        Answer notFailed = call("POST", "/api/v1/queues/mail/jobs/d/retry");
        Answer retried = call("POST", "/api/v1/queues/mail/jobs/f/retry");
        Answer promoted = call("POST", "/api/v1/queues/mail/jobs/d/promote");
        Answer removed = call("DELETE", "/api/v1/queues/mail/jobs/d");
        Answer gone = call("DELETE", "/api/v1/queues/mail/jobs/d");

        assertThat(notFailed.status()).isEqualTo(409);
        assertThat(notFailed.body().get("type").asText()).isEqualTo("urn:sluice:problem:conflict");
        assertThat(retried.body().get("retried").asBoolean()).isTrue();
        assertThat(promoted.body().get("promoted").asBoolean()).isTrue();
        assertThat(removed.body().get("removed").asBoolean()).isTrue();
        assertThat(gone.status()).isEqualTo(404);
        assertThat(mail.job("f").orElseThrow().state()).isEqualTo(JobState.WAITING);
        assertThat(mail.job("d")).isEmpty();
    }

    @Test
    void pausesAndResumesTheQueueAndOneGroup() throws Exception {
        JobQueue<String> mail = mail();
        mail.add("n", "p", JobOptions.builder().jobId("a").group("acme").build());

        call("POST", "/api/v1/queues/mail/pause");
        assertThat(mail.isPaused()).isTrue();
        call("POST", "/api/v1/queues/mail/resume");
        assertThat(mail.isPaused()).isFalse();

        call("POST", "/api/v1/queues/mail/pause?group=acme");
        JsonNode groups =
                call("GET", "/api/v1/queues/mail/groups?prefix=ac").body().get("groups");
        assertThat(groups).hasSize(1);
        assertThat(groups.get(0).get("paused").asBoolean()).isTrue();
        Answer resumed = call("POST", "/api/v1/queues/mail/resume?group=acme");
        assertThat(resumed.body().get("wasPaused").asBoolean()).isTrue();
        assertThat(mail.groups("acme", null, 1).get(0).paused()).isFalse();
    }

    @Test
    void showsTheWorkersAndTheQueuesStatistics() throws Exception {
        JobQueue<String> mail = mail();
        mail.worker(ctx -> Result.done(), WorkerOptions.concurrency(2));

        JsonNode workers = call("GET", "/api/v1/queues/mail/workers").body().get("workers");
        JsonNode queue = call("GET", "/api/v1/queues/mail").body();

        assertThat(workers).hasSize(1);
        assertThat(workers.get(0).get("concurrency").asInt()).isEqualTo(2);
        assertThat(queue.get("workers").asInt()).isEqualTo(1);
        assertThat(queue.get("totals").get("added").asLong()).isZero();
        assertThat(queue.has("waitTime")).isTrue();
    }

    @Test
    void addsAJobWithItsOptionsAndTellsADuplicate() throws Exception {
        JobQueue<String> mail = mail();
        String body = "{\"name\":\"welcome\",\"payload\":\"ada@example.com\","
                + "\"options\":{\"jobId\":\"w1\",\"group\":\"acme\",\"priority\":5,\"delayMs\":60000}}";

        Answer added = call("POST", "/api/v1/queues/mail/jobs", body);
        Answer again = call("POST", "/api/v1/queues/mail/jobs", body);

        assertThat(added.status()).isEqualTo(201);
        assertThat(added.body().get("duplicate").asBoolean()).isFalse();
        assertThat(added.body().get("job").get("id").asText()).isEqualTo("w1");
        assertThat(added.body().get("job").get("state").asText()).isEqualTo("delayed");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.body().get("duplicate").asBoolean()).isTrue();
        Job<String> job = mail.job("w1").orElseThrow();
        assertThat(job.payload()).isEqualTo("ada@example.com");
        assertThat(job.group()).isEqualTo("acme");
        assertThat(job.options().priority()).isEqualTo(5);
        assertThat(mail.counts().delayed()).isEqualTo(1);
    }

    @Test
    void aJsonPayloadThatIsNotAStringIsStoredAsItsJsonText() throws Exception {
        JobQueue<String> mail = mail();

        call(
                "POST",
                "/api/v1/queues/mail/jobs",
                "{\"name\":\"n\",\"payload\":{\"to\":\"ada\"}," + "\"options\":{\"jobId\":\"j\"}}");

        assertThat(mail.job("j").orElseThrow().payload()).isEqualTo("{\"to\":\"ada\"}");
    }

    @Test
    void addsAJobWithEveryOptionAndManyJobsAtOnceAllOrNone() throws Exception {
        JobQueue<String> mail = mail();
        String every = "{\"name\":\"n\",\"payload\":\"p\",\"options\":{\"jobId\":\"e1\",\"group\":\"acme\","
                + "\"priority\":3,\"attempts\":4,\"delayMs\":60000,\"timeoutMs\":5000,"
                + "\"backoff\":{\"type\":\"exponential\",\"baseMs\":100,\"capMs\":1000},"
                + "\"keepCompleted\":{\"count\":10},\"keepFailed\":\"all\",\"deduplicateForMs\":1000,"
                + "\"maxRateLimits\":7}}";

        Answer added = call("POST", "/api/v1/queues/mail/jobs", every);
        JsonNode options = call("GET", "/api/v1/queues/mail/jobs/e1").body().get("options");
        Answer badBackoff = call(
                "POST",
                "/api/v1/queues/mail/jobs",
                "{\"name\":\"n\",\"payload\":1,\"options\":{\"backoff\":{\"type\":\"linear\"}}}");
        Answer badBulk = call(
                "POST", "/api/v1/queues/mail/jobs", "{\"jobs\":[{\"name\":\"a\",\"payload\":\"1\"},{\"name\":\"b\"}]}");
        long afterRefusals = mail.counts().total();
        Answer bulk = call(
                "POST",
                "/api/v1/queues/mail/jobs",
                "{\"jobs\":[{\"name\":\"a\",\"payload\":\"1\",\"options\":{\"jobId\":\"b1\"}},"
                        + "{\"name\":\"b\",\"payload\":\"2\",\"options\":{\"jobId\":\"e1\"}}]}");

        assertThat(added.status()).isEqualTo(201);
        assertThat(options.get("priority").asInt()).isEqualTo(3);
        assertThat(options.get("attempts").asInt()).isEqualTo(4);
        assertThat(options.get("delayMs").asLong()).isEqualTo(60_000);
        assertThat(options.get("timeoutMs").asLong()).isEqualTo(5_000);
        assertThat(options.get("backoff").asText()).containsIgnoringCase("exponential");
        assertThat(options.get("keepCompleted").asText()).contains("10");
        assertThat(options.get("deduplicateForMs").asLong()).isEqualTo(1_000);
        assertThat(options.get("maxRateLimits").asInt()).isEqualTo(7);
        assertThat(mail.job("e1").orElseThrow().group()).isEqualTo("acme");
        assertThat(badBackoff.status()).isEqualTo(400);
        assertThat(badBackoff.body().get("detail").asText()).contains("fixed", "exponential", "linear");
        assertThat(badBulk.status()).isEqualTo(400);
        assertThat(badBulk.body().get("detail").asText()).contains("jobs[1].payload");
        assertThat(afterRefusals).isEqualTo(1);
        assertThat(bulk.status()).isEqualTo(200);
        assertThat(bulk.body().get("jobs").get(0).get("duplicate").asBoolean()).isFalse();
        assertThat(bulk.body().get("jobs").get(1).get("duplicate").asBoolean()).isTrue();
        assertThat(mail.counts().total()).isEqualTo(2);
    }

    @Test
    void aBadAddIsAProblemThatAddsNothing() throws Exception {
        JobQueue<String> mail = mail();

        Answer malformed = call("POST", "/api/v1/queues/mail/jobs", "{\"name\": \"n\", ");
        Answer unknownOption =
                call("POST", "/api/v1/queues/mail/jobs", "{\"name\":\"n\",\"payload\":1,\"options\":{\"retries\":3}}");
        Answer badValue =
                call("POST", "/api/v1/queues/mail/jobs", "{\"name\":\"n\",\"payload\":1,\"options\":{\"attempts\":0}}");
        Answer noPayload = call("POST", "/api/v1/queues/mail/jobs", "{\"name\":\"n\"}");
        Answer tooLarge = call(
                "POST",
                "/api/v1/queues/mail/jobs",
                "{\"name\":\"n\",\"payload\":\"" + "x".repeat((1 << 20) + 1) + "\"}");
        Answer noQueue = call("POST", "/api/v1/queues/typo/jobs", "{\"name\":\"n\",\"payload\":1}");

        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.body().get("detail").asText()).contains("not well-formed JSON");
        assertThat(unknownOption.body().get("detail").asText()).contains("'options.retries'", "attempts", "jobId");
        assertThat(badValue.status()).isEqualTo(400);
        assertThat(badValue.body().get("detail").asText()).contains("attempts");
        assertThat(noPayload.body().get("detail").asText()).contains("payload");
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.body().get("type").asText()).isEqualTo("urn:sluice:problem:too-large");
        assertThat(noQueue.status()).isEqualTo(404);
        assertThat(mail.counts().total()).isZero();
        assertThat(sluice.queueNames()).containsExactly("mail");
    }

    @Test
    void retriesEveryFailedJobCleansDrainsAndObliteratesAQueue() throws Exception {
        JobQueue<String> mail = mail();
        for (String id : new String[] {"f1", "f2"}) {
            mail.add("n", "p", JobOptions.builder().jobId(id).attempts(1).build());
        }
        Worker<String> failing = mail.worker(
                ctx -> {
                    throw new IllegalStateException("boom");
                },
                WorkerOptions.manual());
        failing.runDue();
        Answer retried = call("POST", "/api/v1/queues/mail/retry-failed");
        failing.runDue();
        Answer badState = call("POST", "/api/v1/queues/mail/clean?state=waiting");
        Answer cleaned = call("POST", "/api/v1/queues/mail/clean?state=failed&olderThanMs=0");
        mail.add("n", "p", JobOptions.builder().jobId("w").build());
        mail.add(
                "n",
                "p",
                JobOptions.builder().jobId("d").delay(Duration.ofHours(1)).build());
        Answer drained = call("POST", "/api/v1/queues/mail/drain?delayed=true");
        Answer badFlag = call("DELETE", "/api/v1/queues/mail?force=maybe");
        Worker<String> attached = mail.worker(ctx -> Result.done(), WorkerOptions.concurrency(1));
        Answer refused = call("DELETE", "/api/v1/queues/mail");
        boolean listedWhileWorkerAttached = sluice.queueNames().contains("mail");
        attached.close();
        Answer obliterated = call("DELETE", "/api/v1/queues/mail");

        assertThat(retried.body().get("retried").asInt()).isEqualTo(2);
        assertThat(badState.status()).isEqualTo(400);
        assertThat(badState.body().get("detail").asText()).contains("completed or failed", "waiting");
        assertThat(cleaned.body().get("removed").asInt()).isEqualTo(2);
        assertThat(drained.body().get("removed").asInt()).isEqualTo(2);
        assertThat(badFlag.status()).isEqualTo(400);
        assertThat(badFlag.body().get("detail").asText()).contains("true or false", "maybe");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body().get("detail").asText()).contains("worker");
        assertThat(listedWhileWorkerAttached).isTrue();
        assertThat(obliterated.body().get("obliterated").asBoolean()).isTrue();
        assertThat(sluice.queueNames()).doesNotContain("mail");
    }

    @Test
    void servesTheEnginesMetricsInPrometheusFormatWhenGivenARegistry() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        JobQueue<String> mail = mail();
        try (SluiceMetrics metrics = SluiceMetrics.bind(sluice, registry);
                SluiceServer withMetrics = SluiceServer.builder(SluiceApiServlet.builder(sluice)
                                .prometheus(registry)
                                .build())
                        .port(0)
                        .start()) {
            mail.add("welcome", "ada");
            HttpResponse<String> scrape = http.send(
                    HttpRequest.newBuilder(withMetrics.uri().resolve("/metrics"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            Answer without = call("GET", "/metrics");

            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            assertThat(scrape.body()).contains("sluice_queue_jobs_added_total{queue=\"mail\"} 1.0");
            assertThat(without.status()).isEqualTo(404);
            assertThat(without.body().get("detail").asText()).contains("no metrics");
        }
    }

    @Test
    void changesAQueuesOrAGroupsRateForAWhileAndRevertsIt() throws Exception {
        JobQueue<String> mail = mail();
        mail.add("n", "p", JobOptions.builder().jobId("a").group("acme").build());

        Answer forGood = call(
                "PUT",
                "/api/v1/queues/mail/rate",
                "{\"rate\":{\"policy\":\"fixed-window\",\"limit\":5,\"window\":\"1s\"}}");
        Answer forAWhile = call(
                "PUT",
                "/api/v1/queues/mail/rate",
                "{\"group\":\"acme\",\"rate\":{\"policy\":\"gcra\",\"rate\":2,\"period\":\"1s\",\"burst\":1},"
                        + "\"revertAfterMs\":300}");
        boolean acmeHadItsOwn = mail.groups("acme", null, 1).get(0).ownLimits();
        Answer badPolicy = call("PUT", "/api/v1/queues/mail/rate", "{\"rate\":{\"policy\":\"leaky\"}}");
        Answer noRate = call("PUT", "/api/v1/queues/mail/rate", "{\"group\":\"acme\"}");
        Answer wrongMethod = call("POST", "/api/v1/queues/mail/rate", "{\"rate\":null}");

        assertThat(forGood.status()).isEqualTo(200);
        assertThat(forGood.body().get("previous").isNull()).isTrue();
        assertThat(forGood.body().get("rate").get("policy").asText()).isEqualTo("fixed-window");
        assertThat(forGood.body().get("revertsAt").isNull()).isTrue();
        assertThat(mail.options().rate()).isNotNull();
        assertThat(forAWhile.status()).isEqualTo(200);
        assertThat(forAWhile.body().get("revertsAt").isNull()).isFalse();
        assertThat(acmeHadItsOwn).isTrue();
        assertThat(badPolicy.status()).isEqualTo(400);
        assertThat(badPolicy.body().get("detail").asText()).contains("leaky", "gcra");
        assertThat(noRate.status()).isEqualTo(400);
        assertThat(noRate.body().get("detail").asText()).contains("rate is required");
        assertThat(wrongMethod.status()).isEqualTo(405);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !mail.groups("acme", null, 1).get(0).ownLimits());
        assertThat(mail.options().rate())
                .as("the change without an expiry stays")
                .isNotNull();
        Answer none = call("PUT", "/api/v1/queues/mail/rate", "{\"rate\":null}");
        assertThat(none.body().get("rate").isNull()).isTrue();
        assertThat(mail.options().rate()).isNull();
    }

    @Test
    void registersListsAndRemovesRepeatableJobs() throws Exception {
        JobQueue<String> mail = mail();

        Answer registered = call(
                "PUT",
                "/api/v1/queues/mail/repeatables/digest",
                "{\"schedule\":{\"cron\":\"0 8 * * *\",\"zone\":\"Europe/Paris\"},\"name\":\"digest\",\"payload\":\"d\"}");
        Answer every = call(
                "PUT",
                "/api/v1/queues/mail/repeatables/ping",
                "{\"schedule\":{\"fixedRateMs\":60000},\"name\":\"ping\",\"payload\":\"p\"}");
        Answer badZone = call(
                "PUT",
                "/api/v1/queues/mail/repeatables/x",
                "{\"schedule\":{\"cron\":\"0 8 * * *\",\"zone\":\"Mars/Olympus\"},\"name\":\"x\",\"payload\":\"x\"}");
        Answer noSchedule = call("PUT", "/api/v1/queues/mail/repeatables/y", "{\"name\":\"y\",\"payload\":\"y\"}");
        JsonNode listed = call("GET", "/api/v1/queues/mail/repeatables").body().get("repeatables");
        Answer removed = call("DELETE", "/api/v1/queues/mail/repeatables/ping");
        Answer gone = call("DELETE", "/api/v1/queues/mail/repeatables/ping");

        assertThat(registered.status()).isEqualTo(200);
        assertThat(registered.body().get("nextRun").isNull()).isFalse();
        assertThat(every.body().get("name").asText()).isEqualTo("ping");
        assertThat(badZone.status()).isEqualTo(400);
        assertThat(noSchedule.status()).isEqualTo(400);
        assertThat(noSchedule.body().get("detail").asText()).contains("schedule");
        assertThat(listed).extracting(node -> node.get("id").asText()).containsExactlyInAnyOrder("digest", "ping");
        assertThat(removed.body().get("removed").asBoolean()).isTrue();
        assertThat(gone.status()).isEqualTo(404);
        assertThat(mail.repeatables()).extracting(RepeatableJob::id).containsExactly("digest");
    }

    @Test
    void showsOneGroupWithItsStatistics() throws Exception {
        JobQueue<String> mail = mail();
        mail.add("n", "p", JobOptions.builder().jobId("a").group("acme").build());

        Answer acme = call("GET", "/api/v1/queues/mail/groups/acme");
        Answer none = call("GET", "/api/v1/queues/mail/groups/nobody");

        assertThat(acme.status()).isEqualTo(200);
        assertThat(acme.body().get("waiting").asLong()).isEqualTo(1);
        assertThat(acme.body().has("waitTime")).isTrue();
        assertThat(none.status()).isEqualTo(404);
    }

    @Test
    void showsPayloadsThroughTheRedactionHook() throws Exception {
        JobQueue<String> mail = mail();
        mail.add(
                "charge",
                "{\"card\":\"4111\"}",
                JobOptions.builder().jobId("c1").build());
        SluiceApiServlet api = SluiceApiServlet.builder(sluice)
                .redaction((queue, job, payload) -> job.name().equals("charge")
                        ? "(hidden)".getBytes(java.nio.charset.StandardCharsets.UTF_8)
                        : payload)
                .build();
        try (SluiceServer redacting = SluiceServer.builder(api).port(0).start()) {
            HttpResponse<String> shown = http.send(
                    HttpRequest.newBuilder(redacting.uri().resolve("/api/v1/queues/mail/jobs/c1"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(JSON.readTree(shown.body()).get("payload").asText()).isEqualTo("(hidden)");
            assertThat(call("GET", "/api/v1/queues/mail/jobs/c1")
                            .body()
                            .get("payload")
                            .asText())
                    .contains("4111");
        }
    }

    @Test
    void healthSaysLiveAndReady() throws Exception {
        assertThat(call("GET", "/health/live").body().get("status").asText()).isEqualTo("UP");
        assertThat(call("GET", "/health/ready").status()).isEqualTo(200);
    }

    @Test
    void listensOnLoopbackByDefault() {
        assertThat(URI.create(server.uri().toString()).getHost()).isEqualTo("127.0.0.1");
    }
}
