package dev.sluice.redis.internal;

import java.util.List;

/**
 * The values of a job's snapshot as the queue library replies it (snapshot() of queue-events.lua), in their order:
 * the one place the Java side names their positions. {@code SnapshotFieldTest} checks this order against the
 * library's own list of them, so that a field added on one side cannot shift the other silently.
 */
enum SnapshotField {
    ID,
    NAME,
    PAYLOAD,
    GROUP,
    STATE,
    OPTIONS,
    ATTEMPTS_MADE,
    RATE_LIMITS,
    CREATED_AT,
    RUN_AT,
    STARTED_AT,
    FINISHED_AT,
    PROGRESS,
    RESULT,
    FAILURE_REASON,
    FAILURE_CLASS,
    FAILURE_TRACE,
    TOKEN,
    ATTEMPTS,
    STALLS,
    REPEAT_ID,
    SCHEDULED_AT;

    /** This field's value in {@code snapshot}. */
    Object of(List<Object> snapshot) {
        return snapshot.get(ordinal());
    }

    /** The field's name in the library's list: {@code attemptsMade} for {@link #ATTEMPTS_MADE}. */
    String luaName() {
        StringBuilder name = new StringBuilder();
        for (String word : name().toLowerCase(java.util.Locale.ROOT).split("_")) {
            name.append(name.isEmpty() ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
        }
        return name.toString();
    }
}
