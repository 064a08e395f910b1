package dev.sluice.testkit;

/**
 * JUnit tags on the queue contract's tests of features an engine may build later than the rest: an engine's
 * build can leave out a tag (Maven Surefire's {@code excludedGroups}) while it lacks the feature, and states so.
 * The in-memory engine runs every test.
 */
public final class QueueFeatures {
    private QueueFeatures() {}

    /** Tests of repeatable jobs ({@code repeat}, {@code removeRepeatable}, {@code repeatables}). */
    public static final String REPEATABLE_JOBS = "repeatable-jobs";

    /** Tests of a queue-wide rate or a group's rate. */
    public static final String QUEUE_RATES = "queue-rates";
}
