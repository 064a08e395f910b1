package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.Events;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A worker process for {@link ManyWorkerProcessesTest}: runs a worker on queue {@code jobs} of the Redis at a URL and
 * prints {@code started <id>} as each attempt starts. In {@code hang} mode its processor never returns (a process
 * that froze, to be killed); otherwise it completes each job. On {@code stop} from standard input it closes, writes
 * the ids whose completion Redis recorded for it (its listener heard them, for an attempt this process started),
 * one per line, and exits.
 *
 * <p>Arguments: Redis URL, key prefix, mode ({@code hang} or {@code work}), concurrency, lease in milliseconds,
 * output file; optionally a file for every event its listener heard, as {@code <kind> <id>} lines.
 */
public final class QueueWorkerMain {
    private QueueWorkerMain() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String prefix = args[1];
        boolean hang = args[2].equals("hang");
        int concurrency = Integer.parseInt(args[3]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        Path out = Path.of(args[5]);
        Path eventsOut = args.length > 6 ? Path.of(args[6]) : null;
        PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        List<String> completed = new CopyOnWriteArrayList<>();
        Map<String, Instant> startedHere = new ConcurrentHashMap<>();
        Events heard = new Events() {
            @Override
            public void onCompleted(Job<String> job) {
                super.onCompleted(job);
                // every process hears every completion: this one's are those of attempts it started
                if (job.startedAt().equals(startedHere.get(job.id()))) {
                    completed.add(job.id());
                }
            }
        };
        try (Sluice sluice = RedisSluice.builder().url(url).keyPrefix(prefix).build()) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            queue.addListener(heard);
            Worker<String> worker = queue.worker(
                    ctx -> {
                        Job<String> job = ctx.job();
                        startedHere.put(job.id(), job.startedAt());
                        stdout.println("started " + job.id());
                        if (hang) {
                            Thread.sleep(Duration.ofMinutes(10));
                        }
                        return Result.done();
                    },
                    WorkerOptions.builder()
                            .concurrency(concurrency)
                            .leaseTime(lease)
                            .maxStalls(3)
                            .build());
            stdout.println("ready");
            BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = stdin.readLine()) != null && !line.equals("stop")) {
                // wait for stop
            }
            worker.close(Duration.ofSeconds(10));
        }
        Files.write(out, completed);
        if (eventsOut != null) {
            Files.write(eventsOut, heard.log);
        }
        stdout.println("done");
    }
}
