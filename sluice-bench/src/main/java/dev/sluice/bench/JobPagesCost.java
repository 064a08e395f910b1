package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobPage;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.redis.RedisSluice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a page of waiting jobs costs as it goes deeper into a large queue on Redis: fills one queue with N waiting
 * jobs spread over G groups, then times pages of 100 at offsets 0, N/2 and N-100 (15 each, median), and prints one
 * Markdown table row per offset. A page that Redis does not answer within the command timeout (2 s) prints as such.
 * With {@code cursor} after the label it then times pages of 100 by cursor ({@link JobQueue#jobs(JobState, String,
 * int)}) at the same depths (the cursor reached by pages of 10,000), one row each.
 *
 * <p>Usage: {@code JobPagesCost REDIS_URL N G LABEL [cursor]}
 */
public final class JobPagesCost {
    private static final int PAGE = 100;
    private static final int ROUNDS = 15;
    private static final int BULK = 5_000;

    private JobPagesCost() {}

    /**
     * Runs the measurement.
     *
     * @param args the Redis URL, the number of jobs, the number of groups, and a label for the rows
     */
    public static void main(String[] args) {
        String url = args[0];
        int jobs = Integer.parseInt(args[1]);
        int groups = Integer.parseInt(args[2]);
        String label = args[3];
        try (Sluice sluice = RedisSluice.builder()
                .url(url)
                .keyPrefix("pages-" + System.nanoTime())
                .commandTimeout(Duration.ofSeconds(2))
                .build()) {
            JobQueue<String> queue = sluice.queue(
                    "big", Codec.utf8(), QueueOptions.builder().maxQueued(jobs).build());
            List<NewJob<String>> batch = new ArrayList<>(BULK);
            for (int i = 0; i < jobs; i++) {
                batch.add(new NewJob<>(
                        "n", "p", JobOptions.builder().group("g" + (i % groups)).build()));
                if (batch.size() == BULK || i == jobs - 1) {
                    queue.addBulk(batch);
                    batch.clear();
                }
            }
            for (int offset : new int[] {0, jobs / 2, jobs - PAGE}) {
                System.out.println("| " + label + " | " + jobs + " | " + groups + " | " + offset + " | "
                        + medianMillis(queue, offset) + " |");
            }
            if (args.length > 4 && args[4].equals("cursor")) {
                for (int depth : new int[] {0, jobs / 2, jobs - PAGE}) {
                    System.out.println("| " + label + " | " + jobs + " | " + groups + " | cursor after " + depth + " | "
                            + medianMillis(queue, cursorAt(queue, depth)) + " |");
                }
            }
            queue.obliterate(true);
        }
    }

    /** The cursor of the page that begins after the first {@code depth} waiting jobs, read in pages of 10,000. */
    private static String cursorAt(JobQueue<String> queue, int depth) {
        String cursor = null;
        for (int passed = 0; passed < depth; ) {
            int limit = Math.min(10_000, depth - passed);
            JobPage<String> page = queue.jobs(JobState.WAITING, cursor, limit);
            passed += page.jobs().size();
            cursor = page.next();
        }
        return cursor;
    }

    private static String medianMillis(JobQueue<String> queue, String cursor) {
        long[] nanos = new long[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long start = System.nanoTime();
            try {
                if (queue.jobs(JobState.WAITING, cursor, PAGE).jobs().size() != PAGE) {
                    throw new IllegalStateException("a page by cursor held fewer than " + PAGE + " jobs");
                }
            } catch (SluiceException e) {
                return "no answer within 2 s";
            }
            nanos[r] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return String.format("%.2f ms", nanos[ROUNDS / 2] / 1e6);
    }

    private static String medianMillis(JobQueue<String> queue, int offset) {
        long[] nanos = new long[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long start = System.nanoTime();
            try {
                if (queue.jobs(JobState.WAITING, offset, PAGE).size() != PAGE) {
                    throw new IllegalStateException("a page at " + offset + " held fewer than " + PAGE + " jobs");
                }
            } catch (SluiceException e) {
                return "no answer within 2 s";
            }
            nanos[r] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return String.format("%.2f ms", nanos[ROUNDS / 2] / 1e6);
    }
}
