package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker written in Python with its standard library only ({@code src/test/python/sluice_worker.py}) takes jobs from
 * a running server over the HTTP API. Python 3 must be on the PATH as {@code python3}: without it the test fails,
 * unless the system property {@code sluice.skipPython} is {@code true}.
 */
class PythonWorkerTest {
    private static final int JOBS = 20;
    private static final Path SCRIPT = Path.of("src", "test", "python", "sluice_worker.py");

    @Test
    void aPythonWorkerSquaresEveryJobAndTheQueueKeepsEachResult(@TempDir Path dir) throws Exception {
        String python = python();
        try (Sluice sluice = Sluice.inMemory();
                SluiceServer server = SluiceServer.builder(sluice).port(0).start()) {
            JobQueue<String> squares = sluice.queue("squares", Codec.utf8());
            for (int n = 1; n <= JOBS; n++) {
                squares.add(
                        "square",
                        "{\"n\":" + n + "}",
                        JobOptions.builder().jobId("n" + n).build());
            }
            Path output = dir.resolve("worker.out");
            Process worker = new ProcessBuilder(
                            python,
                            SCRIPT.toString(),
                            "--url",
                            server.uri().toString(),
                            "--queue",
                            "squares",
                            "--jobs",
                            String.valueOf(JOBS),
                            "--name",
                            "python-test")
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            boolean exited = worker.waitFor(60, TimeUnit.SECONDS);
            if (!exited) {
                worker.destroyForcibly();
            }
            String printed = Files.readString(output);

            assertThat(exited)
                    .as("the Python worker exited within 60 s; it printed:%n%s", printed)
                    .isTrue();
            assertThat(worker.exitValue())
                    .as("its exit code; it printed:%n%s", printed)
                    .isZero();
            assertThat(printed).contains("completed " + JOBS + " jobs");
            ObjectMapper json = new ObjectMapper();
            for (int n = 1; n <= JOBS; n++) {
                Job<String> job = squares.job("n" + n).orElseThrow();
                assertThat(job.state()).as("job n%d", n).isEqualTo(JobState.COMPLETED);
                assertThat(json.readTree(job.result()).get("square").asLong())
                        .as("the square of %d", n)
                        .isEqualTo((long) n * n);
                assertThat(job.attemptsMade()).isEqualTo(1);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!squares.workers().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10); // its stop closes the bridged worker after answering
            }
            assertThat(squares.workers()).as("the worker it stopped").isEmpty();
        }
    }

    /** The Python 3 to run, checked to start; fails the test (or skips it when told to) if there is none. */
    private static String python() throws InterruptedException {
        boolean skip = Boolean.getBoolean("sluice.skipPython");
        try {
            Process version = new ProcessBuilder("python3", "--version")
                    .redirectErrorStream(true)
                    .start();
            if (version.waitFor(20, TimeUnit.SECONDS) && version.exitValue() == 0) {
                return "python3";
            }
            version.destroyForcibly();
        } catch (IOException notFound) {
            // said below
        }
        Assumptions.assumeFalse(skip, "python3 is not on the PATH and sluice.skipPython=true: skipped");
        return fail(
                "python3 is not on the PATH (or does not start): install Python 3, or run with -Dsluice.skipPython=true"
                        + " to skip this test");
    }
}
