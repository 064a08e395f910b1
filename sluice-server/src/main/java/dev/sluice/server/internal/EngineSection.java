package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One section of the dashboard snapshot's {@code engine} part: health figures of what runs the queues (the JVM's
 * memory and threads, a Redis server's memory and clients), read once per snapshot. The page shows each section's
 * fields as a table under its {@link #name()}, so a new section needs no change to the page.
 *
 * <p>Implementations are called from one thread at a time, at most about once a second, while someone watches.
 */
public interface EngineSection {
    /**
     * The section's key in the snapshot's {@code engine} object.
     *
     * @return a short name such as {@code jvm} or {@code redis}
     */
    String name();

    /**
     * Reads the section now. Its fields should be flat (numbers, text, booleans) so the page can list them; a field
     * named {@code warning} is shown as a warning.
     *
     * @return the figures
     * @throws dev.sluice.SluiceException if what it reads cannot be reached (the snapshot then fails, as any engine
     *     read does)
     */
    ObjectNode read();
}
