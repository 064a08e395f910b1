package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Sluice's log records while it is open, down to debug: they reach java.util.logging through SLF4J's JDK binding
 * on the test class path. Closing it restores the loggers.
 */
final class CapturedLogs extends Handler implements AutoCloseable {
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger sluiceLogs = Logger.getLogger("dev.sluice");
    private final Level before;

    CapturedLogs() {
        before = sluiceLogs.getLevel();
        sluiceLogs.addHandler(this);
        sluiceLogs.setLevel(Level.FINE);
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        sluiceLogs.removeHandler(this);
        sluiceLogs.setLevel(before);
    }

    /** The records at {@code level} of the class {@code simpleName}'s logger. */
    List<LogRecord> of(String simpleName, Level level) {
        return records.stream()
                .filter(r -> r.getLevel().equals(level) && r.getLoggerName().endsWith("." + simpleName))
                .toList();
    }

    /** The records at {@code level}, of any logger. */
    List<LogRecord> at(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }

    /** How many debug records say {@code text}. */
    long debugLinesSaying(String text) {
        return at(Level.FINE).stream()
                .filter(r -> r.getMessage().contains(text))
                .count();
    }

    /** Checks that no record above debug carries a stack trace. */
    void assertNoStackTraceAboveDebug() {
        assertThat(records)
                .allSatisfy(r -> assertThat(r.getThrown())
                        .as("a stack trace at %s: %s", r.getLevel(), r.getMessage())
                        .satisfiesAnyOf(
                                thrown -> assertThat(thrown).isNull(),
                                thrown -> assertThat(r.getLevel()).isEqualTo(Level.FINE)));
    }
}
