package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Progress: one range on every engine, 0 to 100, checked at the call; a value outside it throws {@link
 * IllegalArgumentException} naming the range and the value, and changes nothing. Each attempt starts at 0.
 */
public abstract class QueueProgressContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueProgressContract() {}

    @Test
    void aValueOutsideTheRangeIsRefusedAtTheCallNamingTheRangeAndChangesNothing() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));
        List<String> refusals = new ArrayList<>();
        List<Integer> seen = new ArrayList<>();

        manualWorker(queue, ctx -> {
                    ctx.progress(40);
                    for (int bad : new int[] {-1, 101, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                        try {
                            ctx.progress(bad);
                        } catch (IllegalArgumentException e) {
                            refusals.add(e.getMessage());
                        }
                        seen.add(job(queue, "j").progress());
                    }
                    return Result.done();
                })
                .runDue();

        assertThat(refusals).hasSize(4).allSatisfy(m -> assertThat(m).contains("progress", "0", "100"));
        assertThat(refusals.get(0)).contains("-1");
        assertThat(refusals.get(3)).contains(String.valueOf(Integer.MAX_VALUE));
        assertThat(seen).containsOnly(40);
        told(queue);
        assertThat(events.log).containsExactly("added j", "active j", "progress j 40", "completed j", "drained");
        assertThat(job(queue, "j").progress()).isEqualTo(40);
    }

    @Test
    void theEndsOfTheRangeAreAccepted() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        List<Integer> seen = new ArrayList<>();

        manualWorker(queue, ctx -> {
                    ctx.progress(100);
                    seen.add(job(queue, "j").progress());
                    ctx.progress(0);
                    seen.add(job(queue, "j").progress());
                    return Result.done();
                })
                .runDue();

        assertThat(seen).containsExactly(100, 0);
    }

    @Test
    void eachAttemptStartsAtZero() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("j"));
        List<Integer> atStart = new ArrayList<>();

        manualWorker(queue, ctx -> {
                    atStart.add(ctx.job().progress());
                    ctx.progress(60);
                    if (ctx.attempt() == 1) {
                        throw new Boom("again");
                    }
                    return Result.done();
                })
                .runDue();

        assertThat(atStart).containsExactly(0, 0);
        assertThat(job(queue, "j").progress()).isEqualTo(60);
    }
}
