package dev.sluice.time;

/** The check every clock makes of the task it is given to schedule. */
final class TaskCheck {
    private TaskCheck() {}

    static void notNull(Runnable task) {
        if (task == null) {
            throw new IllegalArgumentException("a clock schedules a task to run, was null");
        }
    }
}
