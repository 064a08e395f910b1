package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Retention;
import dev.sluice.testkit.Events;
import dev.sluice.testkit.redis.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Worker JVMs sharing one queue on a real Redis: every job is completed, and its completion recorded exactly
 * once, although one of the processes is killed with {@code kill -9} while it holds jobs: those go to the other
 * processes once their lease runs out.
 */
@Tag("slow")
class ManyWorkerProcessesTest {
    private static final int JOBS = 400;
    private static final long LEASE_MILLIS = 1_000;
    private static final int LIMITED_JOBS = 90;
    private static final int BIG_GROUP = 2_000;
    private static final int SMALL_GROUPS = 9;
    private static final int SMALL_GROUP = 10;
    private static final int QUEUE_PER_SECOND = 20;
    private static final int GROUP_PER_SECOND = 8;

    private static RedisServer redis;

    @TempDir
    Path dir;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    /** A worker process, and what it prints. */
    private record Child(Process process, BufferedReader stdout, Path completed, Path events) {
        String line() throws Exception {
            String line = stdout.readLine();
            if (line == null) {
                throw new AssertionError("a worker process ended early (exit " + process.waitFor() + ")");
            }
            return line;
        }
    }

    /** Tells each worker process to stop, and waits until it has. */
    private static void stop(List<Child> workers) throws Exception {
        for (Child worker : workers) {
            try (Writer stdin = worker.process().outputWriter(StandardCharsets.UTF_8)) {
                stdin.write("stop\n");
            }
            assertThat(worker.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void destroy(List<Child> children) {
        for (Child child : children) {
            if (child.process().isAlive()) {
                child.process().destroyForcibly();
            }
        }
    }

    private Child start(String prefix, String mode, int concurrency, String name) throws Exception {
        Path completed = dir.resolve(name + ".completed");
        Path events = dir.resolve(name + ".events");
        Process process = new ProcessBuilder(
                        ChildJvm.javaBinary(),
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        QueueWorkerMain.class.getName(),
                        redis.uri(),
                        prefix,
                        mode,
                        Integer.toString(concurrency),
                        Long.toString(LEASE_MILLIS),
                        completed.toString(),
                        events.toString())
                .redirectError(dir.resolve(name + ".stderr").toFile())
                .start();
        Child child = new Child(
                process,
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)),
                completed,
                events);
        assertThat(child.line()).isEqualTo("ready");
        return child;
    }

    @Test
    void startsAcrossProcessesNeverExceedTheQueueRateOrAGroupRateInAnySlidingWindow() throws Exception {
        String prefix = TestEngines.newPrefix();
        List<Child> workers = new ArrayList<>();
        try (Sluice sluice =
                RedisSluice.builder().url(redis.uri()).keyPrefix(prefix).build()) {
            JobQueue<String> queue = sluice.queue(
                    "jobs",
                    Codec.utf8(),
                    QueueOptions.builder()
                            .rate(SlidingWindowLog.of(QUEUE_PER_SECOND, Duration.ofSeconds(1)))
                            .groupDefaults(GroupLimits.builder()
                                    .rate(SlidingWindowLog.of(GROUP_PER_SECOND, Duration.ofSeconds(1)))
                                    .concurrency(Integer.MAX_VALUE)
                                    .build())
                            .build());
            List<NewJob<String>> jobs = new ArrayList<>();
            for (int i = 0; i < LIMITED_JOBS; i++) {
                jobs.add(new NewJob<>(
                        "n", "p", JobOptions.builder().group("g" + i % 3).build()));
            }
            queue.addBulk(jobs);
            for (String name : List.of("a", "b", "c")) {
                workers.add(start(prefix, "work", 4, name)); // opened with the defaults: the limits stay
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> queue.counts().completed() == LIMITED_JOBS);
            stop(workers);

            List<Job<String>> done = queue.jobs(JobState.COMPLETED, 0, LIMITED_JOBS);
            assertThat(done).hasSize(LIMITED_JOBS);
            assertThat(mostStartsInAnySecond(done, null)).isLessThanOrEqualTo(QUEUE_PER_SECOND);
            for (String group : List.of("g0", "g1", "g2")) {
                assertThat(mostStartsInAnySecond(done, group)).as(group).isLessThanOrEqualTo(GROUP_PER_SECOND);
            }
            assertThat(mostStartsInAnySecond(done, null))
                    .as("the queue's rate was the bound that held the starts back")
                    .isGreaterThanOrEqualTo(QUEUE_PER_SECOND - 2);
        } finally {
            destroy(workers);
        }
    }

    @Test
    void acrossProcessesSmallGroupsFinishLongBeforeABigOne() throws Exception {
        String prefix = TestEngines.newPrefix();
        List<Child> workers = new ArrayList<>();
        try (Sluice sluice =
                RedisSluice.builder().url(redis.uri()).keyPrefix(prefix).build()) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            List<NewJob<String>> jobs = new ArrayList<>();
            JobOptions.Builder keep = JobOptions.builder().keepCompleted(Retention.keepAll());
            for (int i = 0; i < BIG_GROUP; i++) {
                jobs.add(new NewJob<>("n", "p", keep.group("big").build()));
            }
            for (int g = 0; g < SMALL_GROUPS; g++) {
                for (int i = 0; i < SMALL_GROUP; i++) {
                    jobs.add(new NewJob<>("n", "p", keep.group("small" + g).build()));
                }
            }
            for (int from = 0; from < jobs.size(); from += 500) {
                queue.addBulk(jobs.subList(from, Math.min(jobs.size(), from + 500)));
            }
            for (String name : List.of("a", "b", "c")) {
                workers.add(start(prefix, "work", 4, name));
            }
            int total = BIG_GROUP + SMALL_GROUPS * SMALL_GROUP;
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> queue.counts().completed() == total);
            stop(workers);

            List<Job<String>> done = new ArrayList<>();
            for (int offset = 0; offset < total; offset += 10_000) {
                done.addAll(queue.jobs(JobState.COMPLETED, offset, 10_000));
            }
            done.sort(Comparator.comparing(Job::startedAt));
            int lastSmall = 0;
            for (int i = 0; i < done.size(); i++) {
                if (!"big".equals(done.get(i).group())) {
                    lastSmall = i;
                }
            }
            assertThat(lastSmall + 1)
                    .as("the start of the last small group's last job, among all %d starts", total)
                    .isLessThanOrEqualTo(2 * (SMALL_GROUPS + 1) * SMALL_GROUP);
        } finally {
            destroy(workers);
        }
    }

    /** The most starts (Redis's time of each job's first attempt) of {@code group} (null: all) in any [t, t + 1 s). */
    private static int mostStartsInAnySecond(List<Job<String>> jobs, String group) {
        List<Instant> starts = new ArrayList<>();
        for (Job<String> job : jobs) {
            if (group == null || group.equals(job.group())) {
                starts.add(job.attempts().get(0).startedAt());
            }
        }
        starts.sort(null);
        int most = 0;
        for (int first = 0, last = 0; last < starts.size(); last++) {
            while (!starts.get(first).plusSeconds(1).isAfter(starts.get(last))) {
                first++;
            }
            most = Math.max(most, last - first + 1);
        }
        return most;
    }

    @Test
    void aListenerHereAndOneInTheWorkerProcessHearTheSameEventsInTheSameOrder() throws Exception {
        String prefix = TestEngines.newPrefix();
        List<Child> children = new ArrayList<>();
        try (Sluice sluice =
                RedisSluice.builder().url(redis.uri()).keyPrefix(prefix).build()) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            Events heard = new Events();
            queue.addListener(heard);
            Child worker = start(prefix, "work", 2, "listening");
            children.add(worker);
            int jobs = 50;
            for (int i = 0; i < jobs; i++) {
                queue.add("n", "p" + i, JobOptions.builder().jobId("e" + i).build());
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> heard.log.stream()
                                    .filter(e -> e.startsWith("completed"))
                                    .count()
                            == jobs);
            stop(List.of(worker));
            List<String> heardThere = Files.readAllLines(worker.events());

            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> heard.log.size() >= heardThere.size());
            assertThat(heard.log).as("heard here and in the worker process").isEqualTo(heardThere);
            assertThat(Files.readAllLines(worker.completed())).hasSize(jobs);
            for (int i = 0; i < jobs; i++) {
                String id = "e" + i;
                assertThat(heard.log.stream().filter(e -> e.endsWith(" " + id)))
                        .containsExactly("added " + id, "active " + id, "completed " + id);
                Job<String> done = heard.snapshotOf("completed " + id);
                assertThat(done.state()).isEqualTo(JobState.COMPLETED);
                assertThat(done.payload()).isEqualTo("p" + i);
                assertThat(done.attemptsMade()).isEqualTo(1);
                assertThat(done.finishedAt())
                        .isEqualTo(queue.job(id).orElseThrow().finishedAt());
            }
        } finally {
            destroy(children);
        }
    }

    @Test
    void everyJobIsCompletedOnceAlthoughAWorkerProcessHoldingJobsIsKilled() throws Exception {
        String prefix = TestEngines.newPrefix();
        List<Child> children = new ArrayList<>();
        try (Sluice sluice =
                RedisSluice.builder().url(redis.uri()).keyPrefix(prefix).build()) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            List<NewJob<String>> jobs = new ArrayList<>();
            for (int i = 0; i < JOBS; i++) {
                jobs.add(new NewJob<>(
                        "n", "p" + i, JobOptions.builder().jobId("j" + i).build()));
            }
            queue.addBulk(jobs);

            Child victim = start(prefix, "hang", 3, "victim");
            Set<String> held = new HashSet<>();
            while (held.size() < 3) {
                held.add(victim.line().substring("started ".length()));
            }
            List<Child> workers = List.of(start(prefix, "work", 4, "a"), start(prefix, "work", 4, "b"));
            children.addAll(workers);
            victim.process().destroyForcibly(); // kill -9: no close, no return of its jobs
            victim.process().waitFor(10, TimeUnit.SECONDS);

            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> queue.counts().completed() == JOBS);

            List<String> completions = new ArrayList<>();
            for (Child worker : workers) {
                try (Writer stdin = worker.process().outputWriter(StandardCharsets.UTF_8)) {
                    stdin.write("stop\n");
                }
                assertThat(worker.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(worker.process().exitValue()).isZero();
                completions.addAll(Files.readAllLines(worker.completed()));
            }
            assertThat(completions)
                    .as("each job's completion recorded once")
                    .hasSize(JOBS)
                    .doesNotHaveDuplicates();
            assertThat(queue.counts().waiting() + queue.counts().active()).isZero();
            for (String id : held) {
                Job<String> job = queue.job(id).orElseThrow();
                assertThat(job.state()).isEqualTo(JobState.COMPLETED);
                assertThat(job.attempts())
                        .as("job %s: its first attempt died with the killed process", id)
                        .extracting(Job.Attempt::outcome)
                        .containsExactly(Job.Attempt.Outcome.INTERRUPTED, Job.Attempt.Outcome.COMPLETED);
            }
        } finally {
            destroy(children);
        }
    }
}
