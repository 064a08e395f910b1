package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.testkit.Events;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a queue with a listener logs through a Redis outage (regression: the events' reader logged its warning
 * with the whole stack trace): one warning naming the cause when the outage begins, one line when the reader reads
 * again; the failed reads in between only at debug.
 */
@Tag("slow")
class RedisListenerOutageLogTest {
    @Test
    void aListenedQueueLogsOneLineWhenAnOutageBeginsAndOneWhenItEnds() throws Exception {
        try (CapturedLogs captured = new CapturedLogs();
                RedisServer redis = RedisServer.start();
                Sluice sluice = Outages.quickToNotice(redis)) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            Events events = new Events();
            queue.addListener(events);

            redis.kill();
            Awaitility.await("the reader failing again and again while Redis is down")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> captured.debugLinesSaying("still cannot read its events") >= 5);
            redis.restart();
            Outages.awaitReconnected(queue);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> events.log.contains("added after"));
            Awaitility.await("the reader reading again")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> !captured.of("QueueEvents", Level.INFO).isEmpty());

            captured.assertNoStackTraceAboveDebug();
            assertThat(captured.of("QueueEvents", Level.WARNING))
                    .extracting(LogRecord::getMessage)
                    .singleElement()
                    .asString()
                    .contains("cannot read its events from Redis (")
                    .contains("tries again every 100 ms");
            assertThat(captured.of("QueueEvents", Level.INFO))
                    .extracting(LogRecord::getMessage)
                    .singleElement()
                    .asString()
                    .endsWith("reads its events from Redis again");
        }
    }
}
