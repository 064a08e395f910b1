package dev.sluice.queue;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Zones, instants and run lists the schedule tests share. */
final class ScheduleFixtures {
    static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    static final ZoneId KYIV = ZoneId.of("Europe/Kyiv");
    /** An anchor far in the past, so it never bounds a schedule unless a test wants it to. */
    static final Instant OLD_ANCHOR = Instant.parse("2000-01-01T00:00:00Z");

    static Instant at(String instant) {
        return Instant.parse(instant);
    }

    static Instant local(ZoneId zone, String localDateTime) {
        return LocalDateTime.parse(localDateTime).atZone(zone).toInstant();
    }

    /** The next {@code count} run times, each strictly after the one before. */
    static List<Instant> runs(Schedule schedule, Instant after, int count) {
        List<Instant> runs = new ArrayList<>();
        Instant from = after;
        for (int i = 0; i < count; i++) {
            Optional<Instant> next = schedule.nextAfter(from, OLD_ANCHOR);
            if (next.isEmpty()) {
                break;
            }
            runs.add(next.get());
            from = next.get();
        }
        return runs;
    }

    private ScheduleFixtures() {}
}
