package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a worker logs through a Redis outage (regression: every slot's failed call logged 40 lines of stack trace,
 * worded for producers: "the outcome is unknown, a retry with the same job id is safe"): one warning when it
 * begins, naming the cause in the worker's own words, and one line when it ends; no stack trace.
 */
@Tag("slow")
class RedisWorkerOutageLogTest {
    @Test
    void aWorkerLogsOneLineWhenAnOutageBeginsAndOneWhenItEnds() throws Exception {
        try (CapturedLogs captured = new CapturedLogs();
                RedisServer redis = RedisServer.start();
                Sluice sluice = Outages.quickToNotice(redis)) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            AtomicInteger done = new AtomicInteger();
            Worker<String> worker = queue.worker(
                    ctx -> {
                        done.incrementAndGet();
                        return Result.done();
                    },
                    WorkerOptions.builder()
                            .concurrency(8)
                            .leaseTime(Duration.ofSeconds(3))
                            .build());
            queue.add("before", "p");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done.get() == 1);

            redis.kill();
            Awaitility.await("the slots failing again and again while Redis is down")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> captured.debugLinesSaying("still cannot reach Redis") >= 10);
            redis.restart();
            Outages.awaitReconnected(queue);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> done.get() == 2);
            worker.close(Duration.ofSeconds(5));

            captured.assertNoStackTraceAboveDebug();
            List<LogRecord> warnings = captured.of("RedisWorker", Level.WARNING);
            assertThat(warnings).extracting(LogRecord::getMessage).hasSize(1);
            LogRecord outage = warnings.get(0);
            assertThat(outage.getMessage())
                    .startsWith("worker of ")
                    .contains("cannot reach Redis")
                    .contains("tries again every 100 ms")
                    .doesNotContain("outcome is unknown")
                    .doesNotContain("retry with the same job id");
            assertThat(captured.of("RedisWorker", Level.INFO))
                    .extracting(LogRecord::getMessage)
                    .singleElement()
                    .asString()
                    .startsWith("worker of ")
                    .endsWith(" reaches Redis again");
            assertThat(captured.at(Level.SEVERE)).isEmpty();
        }
    }
}
