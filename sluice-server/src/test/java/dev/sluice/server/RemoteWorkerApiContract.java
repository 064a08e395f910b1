package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Workers in other languages over real HTTP (claim, renew, complete, fail, rate-limited, leases and their fencing),
 * held to one behaviour on every engine: each subclass gives an engine and says how time passes on its clock.
 */
abstract class RemoteWorkerApiContract {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    Sluice sluice;
    SluiceServer server;
    JobQueue<String> squares;

    /** A new, empty engine. */
    abstract Sluice newEngine();

    /**
     * Lets {@code time} pass on the engine's clock, running what falls due. On an engine with a real clock this does
     * nothing: the test then waits, with a deadline, for what the time brings.
     */
    abstract void elapse(Duration time);

    /** The lease of the tests where a lease runs out: on a real clock, the shortest allowed. */
    abstract long shortLeaseMs();

    @BeforeEach
    void start() {
        sluice = newEngine();
        server = SluiceServer.builder(sluice).port(0).start();
        squares = sluice.queue("squares", Codec.utf8());
    }

    @AfterEach
    void stop() {
        server.close();
        sluice.close();
    }

    /** What one request answered; the body is a missing node when there was none. */
    record Answer(int status, JsonNode body) {
        String detail() {
            return body.path("detail").asText();
        }

        String type() {
            return body.path("type").asText();
        }
    }

    Answer call(String method, String path, String body) {
        return answer(http.sendAsync(request(method, path, body), HttpResponse.BodyHandlers.ofString()));
    }

    CompletableFuture<HttpResponse<String>> callAsync(String method, String path) {
        return http.sendAsync(request(method, path, null), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String method, String path, String body) {
        return HttpRequest.newBuilder(server.uri().resolve(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(90))
                .build();
    }

    static Answer answer(CompletableFuture<HttpResponse<String>> sent) {
        try {
            HttpResponse<String> response = sent.get(90, TimeUnit.SECONDS);
            return new Answer(response.statusCode(), JSON.readTree(response.body()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("no answer: " + e, e);
        }
    }

    /** Waits until {@code condition} holds, running what falls due on the engine's clock, failing after 20 s. */
    void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            elapse(Duration.ZERO);
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not seen within 20 s: " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }

    String register(String name, int concurrency, long leaseMs) {
        Answer registered = call(
                "POST",
                "/api/v1/queues/squares/workers",
                "{\"name\":\"" + name + "\",\"concurrency\":" + concurrency + ",\"leaseMs\":" + leaseMs + "}");
        assertThat(registered.status()).as(registered.body().toString()).isEqualTo(201);
        return registered.body().get("workerId").asText();
    }

    Answer claim(String worker, int waitMs) {
        return call("POST", "/api/v1/queues/squares/workers/" + worker + "/claim?waitMs=" + waitMs, null);
    }

    Answer onLease(String worker, String token, String action, String body) {
        return call("POST", "/api/v1/queues/squares/workers/" + worker + "/leases/" + token + "/" + action, body);
    }

    void add(String id, int n, JobOptions.Builder options) {
        squares.add("square", "{\"n\":" + n + "}", options.jobId(id).build());
    }

    Job<String> job(String id) {
        return squares.job(id).orElseThrow();
    }

    void awaitState(String id, JobState state) {
        await("job " + id + " " + state, () -> job(id).state() == state);
    }

    @Test
    void claimsAJobWithItsLeaseAndCompletesItOnce() {
        add("j7", 7, JobOptions.builder().group("acme"));
        String worker = register("py-1", 1, 30_000);

        Answer claimed = claim(worker, 10_000);
        String token = claimed.body().path("token").asText();
        Answer completed = onLease(worker, token, "complete", "{\"result\":{\"square\":49}}");
        awaitState("j7", JobState.COMPLETED);
        Answer again = onLease(worker, token, "complete", "{\"result\":{\"square\":0}}");

        assertThat(claimed.status()).isEqualTo(200);
        JsonNode job = claimed.body();
        assertThat(job.get("id").asText()).isEqualTo("j7");
        assertThat(job.get("name").asText()).isEqualTo("square");
        assertThat(job.get("group").asText()).isEqualTo("acme");
        assertThat(job.get("attempt").asInt()).isEqualTo(1);
        assertThat(job.get("payload").asText()).isEqualTo("{\"n\":7}");
        assertThat(job.get("payloadEncoding").asText()).isEqualTo("utf-8");
        assertThat(token).hasSize(32);
        assertThat(Instant.parse(job.get("leaseEndsAt").asText()))
                .isAfter(sluice.clock().instant().plusSeconds(20));
        assertThat(completed.status()).isEqualTo(200);
        assertThat(job("j7").result()).isEqualTo("{\"square\":49}");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.type()).isEqualTo("urn:sluice:problem:conflict");
        assertThat(again.detail()).contains("j7", "completed", "nothing was changed");
        assertThat(job("j7").result()).isEqualTo("{\"square\":49}");
    }

    @Test
    void aFailureIsRetriedAsTheJobSaysAndTheNextClaimIsTheNextAttempt() {
        add("j", 2, JobOptions.builder().attempts(2));
        String worker = register("py-1", 1, 30_000);

        Answer first = claim(worker, 10_000);
        Answer failed =
                onLease(worker, first.body().get("token").asText(), "fail", "{\"error\":\"downstream said 500\"}");
        Answer second = claim(worker, 10_000);
        onLease(worker, second.body().get("token").asText(), "complete", null);
        awaitState("j", JobState.COMPLETED);

        assertThat(failed.status()).isEqualTo(200);
        assertThat(failed.body().get("retry").asBoolean()).isTrue();
        assertThat(second.body().get("id").asText()).isEqualTo("j");
        assertThat(second.body().get("attempt").asInt()).isEqualTo(2);
        Job<String> job = job("j");
        assertThat(job.attemptsMade()).isEqualTo(2);
        assertThat(job.attempts().get(0).outcome()).isEqualTo(Job.Attempt.Outcome.FAILED);
        assertThat(job.attempts().get(0).error()).contains("downstream said 500");
        assertThat(job.result()).isNull();
    }

    @Test
    void anUnrecoverableFailureFailsTheJobWhateverAttemptsRemain() {
        add("j", 3, JobOptions.builder().attempts(5));
        String worker = register("py-1", 1, 30_000);

        Answer claimed = claim(worker, 10_000);
        Answer failed = onLease(
                worker, claimed.body().get("token").asText(), "fail", "{\"error\":\"n must be even\",\"retry\":false}");
        awaitState("j", JobState.FAILED);

        assertThat(failed.status()).isEqualTo(200);
        assertThat(job("j").attemptsMade()).isEqualTo(1);
        assertThat(job("j").failure().reason()).contains("n must be even");
    }

    @Test
    void aRateLimitedJobGoesBackWithoutUsingAnAttemptAndPausesItsGroup() {
        add("j", 4, JobOptions.builder().group("acme"));
        String worker = register("py-1", 1, 30_000);

        Answer claimed = claim(worker, 10_000);
        Answer limited = onLease(worker, claimed.body().get("token").asText(), "rate-limited", "{\"delayMs\":600000}");
        await("the job back with a rate limit", () -> job("j").rateLimits() == 1);

        assertThat(limited.status()).isEqualTo(200);
        Job<String> job = job("j");
        assertThat(job.state()).isEqualTo(JobState.WAITING);
        assertThat(job.attemptsMade()).isZero();
        assertThat(squares.groups("acme", null, 1).get(0).pausedUntil())
                .isAfter(sluice.clock().instant().plusSeconds(500));
        assertThat(claim(worker, 0).status()).as("the group is paused").isEqualTo(204);
    }

    @Test
    void aRenewalKeepsTheLeasePastItsFirstEnd() {
        long lease = 30_000;
        add("j", 5, JobOptions.builder().attempts(2));
        String worker = register("py-1", 1, lease);

        Answer claimed = claim(worker, 10_000);
        String token = claimed.body().get("token").asText();
        elapse(Duration.ofMillis(lease * 3 / 4));
        Answer renewed = onLease(worker, token, "renew", null);
        elapse(Duration.ofMillis(lease * 3 / 4));
        Answer completed = onLease(worker, token, "complete", "{\"result\":\"25\"}");
        awaitState("j", JobState.COMPLETED);

        assertThat(renewed.status()).isEqualTo(200);
        assertThat(Instant.parse(renewed.body().get("leaseEndsAt").asText()))
                .isAfter(Instant.parse(claimed.body().get("leaseEndsAt").asText()));
        assertThat(completed.status()).isEqualTo(200);
        assertThat(job("j").attemptsMade()).isEqualTo(1);
        assertThat(job("j").result()).isEqualTo("25");
    }

    @Test
    void anExpiredLeaseIsAConflictAndItsAttemptFailsAsOneThatRanTooLong() {
        long lease = shortLeaseMs();
        add("j", 6, JobOptions.builder().attempts(2));
        String first = register("py-1", 1, lease);
        String second = register("py-2", 1, lease);
        String token = claim(first, 10_000).body().get("token").asText();
        // both keep being heard from: each waits in a claim, the first for its next job
        CompletableFuture<HttpResponse<String>> firstNext =
                callAsync("POST", "/api/v1/queues/squares/workers/" + first + "/claim?waitMs=60000");
        CompletableFuture<HttpResponse<String>> secondNext =
                callAsync("POST", "/api/v1/queues/squares/workers/" + second + "/claim?waitMs=60000");
        await("both claims waiting", () -> claimsWaiting(first) == 1 && claimsWaiting(second) == 1);

        elapse(Duration.ofMillis(lease));
        await("the job claimed again", () -> firstNext.isDone() || secondNext.isDone());
        Answer late = onLease(first, token, "complete", null);
        boolean firstGotIt = firstNext.isDone();
        Answer next = answer(firstGotIt ? firstNext : secondNext);
        call("DELETE", "/api/v1/queues/squares/workers/" + (firstGotIt ? second : first), null);
        String nextWorker = firstGotIt ? first : second;
        onLease(nextWorker, next.body().get("token").asText(), "complete", null);
        awaitState("j", JobState.COMPLETED);

        assertThat(late.status()).isEqualTo(409);
        assertThat(late.detail()).contains("without a renewal");
        assertThat(next.body().get("id").asText()).isEqualTo("j");
        assertThat(next.body().get("attempt").asInt()).isEqualTo(2);
        Job<String> job = job("j");
        assertThat(job.attemptsMade()).isEqualTo(2);
        assertThat(job.attempts().get(0).error()).contains("lease", "without a renewal");
    }

    @Test
    void aWorkerNotHeardFromIsClosedAndItsJobGoesBackWithoutUsingAnAttempt() {
        long lease = shortLeaseMs();
        add("j", 8, JobOptions.builder());
        String silent = register("py-1", 1, lease);
        String token = claim(silent, 10_000).body().get("token").asText();

        elapse(Duration.ofMillis(lease));
        await("the silent worker closed", () -> worker(silent).status() == 404);
        String other = register("py-2", 1, 30_000);
        Answer next = claim(other, 10_000);
        Answer late = onLease(silent, token, "complete", null);

        assertThat(next.body().get("id").asText()).isEqualTo("j");
        assertThat(next.body().get("attempt").asInt()).isEqualTo(1);
        assertThat(late.status()).isEqualTo(404);
        assertThat(job("j").state()).isEqualTo(JobState.ACTIVE);
        assertThat(job("j").attemptsMade()).isZero();
        assertThat(job("j").attempts().get(0).outcome()).isEqualTo(Job.Attempt.Outcome.INTERRUPTED);
    }

    @Test
    void aClaimWaitsForAJobAndAnswersNoContentWhenNoneCame() {
        String worker = register("py-1", 1, 30_000);

        Answer none = claim(worker, 100);
        CompletableFuture<HttpResponse<String>> waiting =
                callAsync("POST", "/api/v1/queues/squares/workers/" + worker + "/claim?waitMs=60000");
        await("the claim waiting", () -> claimsWaiting(worker) == 1);
        add("j", 9, JobOptions.builder());
        Answer got = answer(waiting);

        assertThat(none.status()).isEqualTo(204);
        assertThat(none.body().isMissingNode()).isTrue();
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.body().get("id").asText()).isEqualTo("j");
    }

    @Test
    void theBridgedWorkerIsListedAsRemoteUntilItStops() {
        squares.worker(ctx -> Result.done(), WorkerOptions.concurrency(2));
        String worker = register("billing-py", 3, 30_000);

        JsonNode listed =
                call("GET", "/api/v1/queues/squares/workers", null).body().get("workers");
        Answer described = worker(worker);
        Answer stopped = call("DELETE", "/api/v1/queues/squares/workers/" + worker, null);
        await("the worker gone", () -> worker(worker).status() == 404);
        JsonNode after =
                call("GET", "/api/v1/queues/squares/workers", null).body().get("workers");

        assertThat(listed).hasSize(2);
        JsonNode remote = listed.get(0).get("concurrency").asInt() == 3 ? listed.get(0) : listed.get(1);
        JsonNode java = remote == listed.get(0) ? listed.get(1) : listed.get(0);
        assertThat(remote.get("remote").asText()).isEqualTo("billing-py");
        assertThat(remote.get("remoteId").asText()).isEqualTo(worker);
        assertThat(java.get("remote").isNull()).isTrue();
        assertThat(described.body().get("name").asText()).isEqualTo("billing-py");
        assertThat(described.body().get("concurrency").asInt()).isEqualTo(3);
        assertThat(stopped.status()).isEqualTo(200);
        assertThat(stopped.body().get("stopping").asBoolean()).isTrue();
        assertThat(after).hasSize(1);
        assertThat(after.get(0).get("concurrency").asInt()).isEqualTo(2);
    }

    @Test
    void badRequestsAreProblemsThatChangeNothing() {
        add("j", 10, JobOptions.builder());
        String worker = register("py-1", 1, 30_000);
        String token = claim(worker, 10_000).body().get("token").asText();
        String workers = "/api/v1/queues/squares/workers";

        Answer noQueue = call("POST", "/api/v1/queues/typo/workers", "{\"name\":\"w\"}");
        Answer concurrency = call("POST", workers, "{\"name\":\"w\",\"concurrency\":0}");
        Answer leaseMs = call("POST", workers, "{\"name\":\"w\",\"leaseMs\":10}");
        Answer noName = call("POST", workers, "{\"concurrency\":1}");
        Answer unknownField = call("POST", workers, "{\"name\":\"w\",\"threads\":2}");
        Answer malformed = call("POST", workers, "{\"name\": ");
        Answer noWorker = claim("remote-nope", 0);
        Answer waitTooLong = claim(worker, 60_001);
        Answer waitNotANumber = call("POST", workers + "/" + worker + "/claim?waitMs=soon", null);
        Answer claimByGet = call("GET", workers + "/" + worker + "/claim", null);
        Answer noToken = onLease(worker, "0".repeat(32), "renew", null);
        Answer noAction = onLease(worker, token, "finish", null);
        Answer badComplete = onLease(worker, token, "complete", "{\"result\": ");
        Answer noError = onLease(worker, token, "fail", "{\"retry\":false}");
        Answer badRetry = onLease(worker, token, "fail", "{\"error\":\"x\",\"retry\":\"no\"}");
        Answer badScope = onLease(worker, token, "rate-limited", "{\"delayMs\":5,\"scope\":\"tenant\"}");
        Answer noDelay = onLease(worker, token, "rate-limited", "{}");

        assertThat(noQueue.status()).isEqualTo(404);
        assertThat(noQueue.type()).isEqualTo("urn:sluice:problem:queue-not-found");
        assertThat(sluice.queueNames()).containsExactly("squares");
        assertThat(concurrency.status()).isEqualTo(400);
        assertThat(concurrency.detail()).contains("concurrency", "1 to 1000", "was 0");
        assertThat(leaseMs.detail()).contains("leaseMs", "1000 to 86400000");
        assertThat(noName.detail()).contains("name");
        assertThat(unknownField.detail()).contains("'threads'", "concurrency", "leaseMs", "name");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.detail()).contains("not well-formed JSON");
        assertThat(noWorker.status()).isEqualTo(404);
        assertThat(noWorker.detail()).contains("remote-nope");
        assertThat(waitTooLong.detail()).contains("waitMs", "0 to 60000");
        assertThat(waitNotANumber.status()).isEqualTo(400);
        assertThat(claimByGet.status()).isEqualTo(405);
        assertThat(noToken.status()).isEqualTo(404);
        assertThat(noAction.status()).isEqualTo(404);
        assertThat(noAction.detail()).contains("renew", "complete", "fail", "rate-limited");
        assertThat(badComplete.status()).isEqualTo(400);
        assertThat(noError.detail()).contains("error");
        assertThat(badRetry.detail()).contains("retry", "true or false");
        assertThat(badScope.detail()).contains("group or queue", "tenant");
        assertThat(noDelay.detail()).contains("delayMs");
        JsonNode listed = call("GET", workers, null).body().get("workers");
        assertThat(listed).hasSize(1);
        assertThat(job("j").state()).isEqualTo(JobState.ACTIVE);
        assertThat(job("j").attempts()).hasSize(1);
        assertThat(onLease(worker, token, "complete", null).status())
                .as("the lease survived every refusal")
                .isEqualTo(200);
    }

    Answer worker(String id) {
        return call("GET", "/api/v1/queues/squares/workers/" + id, null);
    }

    int claimsWaiting(String id) {
        return worker(id).body().path("claimsWaiting").asInt();
    }
}
