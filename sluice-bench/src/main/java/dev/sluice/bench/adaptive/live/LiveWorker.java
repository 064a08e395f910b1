package dev.sluice.bench.adaptive.live;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.RedisSluice;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One worker process of the live run: opens the run's queue on Redis (with the adaptive rate {@link LiveRun#RATE})
 * and calls the downstream for each job: a 200 completes it, a 429 returns {@code Result.rateLimited(QUEUE,
 * Retry-After)}. Runs until killed. Arguments: the Redis URL, the downstream's port, this process's name.
 */
public final class LiveWorker {
    private LiveWorker() {}

    /**
     * Runs the worker until the process is killed.
     *
     * @param args the Redis URL, the downstream's port, this process's name
     * @throws InterruptedException never in practice: it waits forever
     */
    public static void main(String[] args) throws InterruptedException {
        String redis = args[0];
        URI call = URI.create("http://127.0.0.1:" + args[1] + "/call?" + args[2]);
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        Sluice sluice = RedisSluice.connect(redis);
        JobQueue<String> queue = sluice.queue(LiveRun.QUEUE, Codec.utf8(), LiveRun.options());
        Worker<String> worker = queue.worker(
                job -> {
                    HttpResponse<Void> response = http.send(
                            HttpRequest.newBuilder(call)
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (response.statusCode() == 429) {
                        long millis = response.headers()
                                .firstValueAsLong("Retry-After-Ms")
                                .orElse(1000);
                        return Result.rateLimited(Result.Scope.QUEUE, Duration.ofMillis(millis));
                    }
                    return Result.done();
                },
                WorkerOptions.concurrency(LiveRun.CONCURRENCY));
        System.out.println("ready " + args[2] + " " + worker);
        Thread.currentThread().join();
    }
}
