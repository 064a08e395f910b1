package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobPage;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Retention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pages of jobs by cursor ({@link JobQueue#jobs(JobState, String, int)}): each state's order, the last page, and
 * the rules that hold while jobs move between pages (a job that stays is shown once; one that leaves is not shown; one
 * that enters after the cursor's place is shown, one that enters before it is not).
 */
public abstract class QueueCursorContract extends QueueContractSupport {
    /** For subclasses, one per engine. */
    protected QueueCursorContract() {}

    /** The ids of the pages of {@code state} from {@code cursor} on, {@code limit} each; every page but the last full. */
    private static List<String> pagesFrom(JobQueue<String> queue, JobState state, String cursor, int limit) {
        List<String> listed = new ArrayList<>();
        for (int pages = 0; pages < 1_000; pages++) {
            JobPage<String> page = queue.jobs(state, cursor, limit);
            listed.addAll(ids(page.jobs()));
            if (page.next() == null) {
                return listed;
            }
            assertThat(page.jobs()).as("a page with a next cursor is full").hasSize(limit);
            cursor = page.next();
        }
        throw new AssertionError("paging did not end: " + listed);
    }

    private static List<String> pages(JobQueue<String> queue, JobState state, int limit) {
        return pagesFrom(queue, state, null, limit);
    }

    @Test
    void waitingJobsArePagedGroupByGroupInNameOrderTheUngroupedLastEachInTheOrderItsJobsRun() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("u1"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", id("a2").group("a").priority(5).build());
        queue.add("n", "p", id("u2").priority(3).build());
        queue.add("n", "p", inGroup("b2", "b"));
        queue.add("n", "p", inGroup("a3", "a"));
        queue.add("n", "p", inGroup("B1", "B"));
        List<String> expected = List.of("B1", "a2", "a1", "a3", "b1", "b2", "u2", "u1");

        assertThat(pages(queue, JobState.WAITING, 1)).containsExactlyElementsOf(expected);
        assertThat(pages(queue, JobState.WAITING, 3)).containsExactlyElementsOf(expected);
        assertThat(pages(queue, JobState.WAITING, 100)).containsExactlyElementsOf(expected);
    }

    @Test
    void delayedJobsArePagedSoonestFirstEqualTimesInTheOrderTheyWereDelayed() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("3s").delay(Duration.ofSeconds(3)).build());
        queue.add("n", "p", id("1s").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", id("2s").delay(Duration.ofSeconds(2)).build());
        queue.add("n", "p", id("1s-later").delay(Duration.ofSeconds(1)).build());

        assertThat(pages(queue, JobState.DELAYED, 1)).containsExactly("1s", "1s-later", "2s", "3s");
        assertThat(pages(queue, JobState.DELAYED, 3)).containsExactly("1s", "1s-later", "2s", "3s");
    }

    @Test
    void finishedJobsArePagedMostRecentlyFinishedFirst() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        finishFiveJobsOneSecondApart(queue);

        assertThat(pages(queue, JobState.COMPLETED, 2)).containsExactly("c3", "c2", "c1");
        assertThat(pages(queue, JobState.FAILED, 1)).containsExactly("f2", "f1");
    }

    @Test
    void activeJobsArePagedOldestStartFirst() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 3);
        for (String id : List.of("first", "second", "third")) {
            queue.add("n", "p", withId(id));
            eventually().until(() -> blocker.entered.contains(id));
            clock.advance(Duration.ofSeconds(1));
        }

        JobPage<String> page = queue.jobs(JobState.ACTIVE, null, 2);
        assertThat(ids(page.jobs())).containsExactly("first", "second");
        assertThat(pagesFrom(queue, JobState.ACTIVE, page.next(), 2)).containsExactly("third");

        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 3);
    }

    @Test
    void theLastPageHasNoCursorAndAStateWithoutJobsOneEmptyPage() {
        JobQueue<String> queue = newQueue();
        for (String id : List.of("j1", "j2", "j3")) {
            queue.add("n", "p", withId(id));
        }

        JobPage<String> whole = queue.jobs(JobState.WAITING, null, 3);
        assertThat(ids(whole.jobs())).containsExactly("j1", "j2", "j3");
        assertThat(whole.next()).as("no job followed the page").isNull();
        JobPage<String> first = queue.jobs(JobState.WAITING, null, 2);
        assertThat(first.next()).isNotNull();
        JobPage<String> last = queue.jobs(JobState.WAITING, first.next(), 2);
        assertThat(ids(last.jobs())).containsExactly("j3");
        assertThat(last.next()).isNull();
        JobPage<String> none = queue.jobs(JobState.DELAYED, null, 10);
        assertThat(none.jobs()).isEmpty();
        assertThat(none.next()).isNull();
    }

    @Test
    void aWaitingJobThatStaysIsShownOnceWhileOthersLeaveAndEnterBeforeAndAfterTheCursor() {
        JobQueue<String> queue = newQueue();
        for (String id : List.of("g1", "g2", "g3", "g4", "g5", "g6")) {
            queue.add("n", "p", inGroup(id, "g"));
        }
        for (String id : List.of("k1", "k2")) {
            queue.add("n", "p", inGroup(id, "k"));
        }
        JobPage<String> first = queue.jobs(JobState.WAITING, null, 3);
        assertThat(ids(first.jobs())).containsExactly("g1", "g2", "g3");

        queue.remove("g3"); // the job the cursor ended with leaves
        queue.remove("g5"); // a job of a later page leaves
        queue.add("n", "p", id("g0").group("g").priority(9).build()); // enters before the cursor, in its group
        queue.add("n", "p", inGroup("a1", "a")); // enters before the cursor, in an earlier group
        queue.add("n", "p", inGroup("g7", "g")); // enters after the cursor, in its group
        queue.add("n", "p", inGroup("z1", "z")); // enters after the cursor, in a later group
        queue.add("n", "p", withId("u1")); // ungrouped: last

        assertThat(pagesFrom(queue, JobState.WAITING, first.next(), 2))
                .containsExactly("g4", "g6", "g7", "k1", "k2", "z1", "u1");
    }

    @Test
    void aDelayedPagePagesOnWhileJobsArePromotedAndDelayed() {
        JobQueue<String> queue = newQueue();
        for (int s = 1; s <= 5; s++) {
            if (s == 2) {
                queue.add("n", "p", id("twin").delay(Duration.ofSeconds(s)).build()); // due with d2, before it
            }
            queue.add("n", "p", id("d" + s).delay(Duration.ofSeconds(s)).build());
        }
        JobPage<String> first = queue.jobs(JobState.DELAYED, null, 3);
        assertThat(ids(first.jobs())).containsExactly("d1", "twin", "d2");

        queue.promote("d2"); // the job the cursor ended with leaves
        queue.promote("d4"); // a job of a later page leaves
        queue.add("n", "p", id("early").delay(Duration.ofMillis(500)).build()); // before the cursor
        queue.add("n", "p", id("tie").delay(Duration.ofSeconds(2)).build()); // due with d2, delayed after it
        queue.add("n", "p", id("late").delay(Duration.ofSeconds(9)).build()); // after the cursor

        assertThat(pagesFrom(queue, JobState.DELAYED, first.next(), 2)).containsExactly("tie", "d3", "d5", "late");
    }

    @Test
    void aFinishedPagePagesOnWhileJobsAreRetriedRemovedAndFinish() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        for (int i = 1; i <= 6; i++) {
            queue.add("n", "p", withId("c" + i));
        }
        manualWorker(queue, completing()).runDue(); // all at one instant: the order is the order they finished
        JobPage<String> first = queue.jobs(JobState.COMPLETED, null, 2);
        assertThat(ids(first.jobs())).containsExactly("c6", "c5");

        queue.retry("c5", JobState.COMPLETED); // the job the cursor ended with leaves ...
        queue.remove("c2"); // ... and one of a later page
        queue.add("n", "p", withId("c7"));
        manualWorker(queue, completing()).runDue(); // c5 and c7 finish again, before the cursor's place

        assertThat(pagesFrom(queue, JobState.COMPLETED, first.next(), 2)).containsExactly("c4", "c3", "c1");
        assertThat(pages(queue, JobState.COMPLETED, 2)).containsExactly("c7", "c5", "c6", "c4", "c3", "c1");
    }

    @Test
    void aMalformedCursorOrOneOfAnotherStateIsRefusedNamingTheProblem() {
        JobQueue<String> queue = newQueue();
        for (String id : List.of("j1", "j2")) {
            queue.add("n", "p", withId(id));
        }
        String waiting = queue.jobs(JobState.WAITING, null, 1).next();

        assertThatThrownBy(() -> queue.jobs(JobState.WAITING, "not a cursor!", 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cursor 'not a cursor!' is malformed")
                .hasMessageContaining("base64url");
        assertThatThrownBy(() -> queue.jobs(JobState.WAITING, waiting.substring(0, waiting.length() - 3), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is malformed");
        assertThatThrownBy(() -> queue.jobs(JobState.DELAYED, waiting, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("given for WAITING jobs")
                .hasMessageContaining("DELAYED");
        assertThatThrownBy(() -> queue.jobs(JobState.WAITING, waiting, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> queue.jobs(null, (String) null, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("state");
    }
}
