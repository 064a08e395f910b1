package dev.sluice.internal.queue;

import dev.sluice.queue.JobState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;

/**
 * The place a page of jobs ended ({@link dev.sluice.queue.JobPage#next()}), in its state's order on the engine that
 * gave it, written as an opaque text. What {@code first} and {@code second} hold is the engine's: for waiting jobs the
 * priority and the order within it, for delayed ones the due time and the order, for active ones the start and the
 * order, for finished ones the finish's number and (on Redis) how many kept jobs were older. Engines read a cursor
 * with {@link #read}, which refuses a malformed one or one of another state.
 *
 * @param state the state the page listed
 * @param group the group of a waiting job; {@code null} for the ungrouped jobs and the other states
 * @param first the first part of the place
 * @param second the second part of the place
 * @param id the id of the job the page ended with
 */
public record JobCursor(JobState state, String group, long first, long second, String id) {
    private static final int VERSION = 1;
    private static final Base64.Encoder TEXT = Base64.getUrlEncoder().withoutPadding();

    /** The cursor as the caller sees it. */
    public String text() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(state.ordinal());
            out.writeLong(first);
            out.writeLong(second);
            out.writeBoolean(group != null);
            if (group != null) {
                out.writeUTF(group);
            }
            out.writeUTF(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return TEXT.encodeToString(bytes.toByteArray());
    }

    /**
     * The cursor {@code text} names, for a page of {@code state}.
     *
     * @param text a cursor, or null for the first page
     * @param state the state the caller lists
     * @return the cursor, or null for the first page
     * @throws IllegalArgumentException if the text is no cursor a queue gave, or one given for another state
     */
    public static JobCursor read(String text, JobState state) {
        if (text == null) {
            return null;
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw malformed(text, "it is not the base64url text a page gives");
        }
        JobCursor cursor;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int version = in.readUnsignedByte();
            if (version != VERSION) {
                throw malformed(text, "its version is " + version + ", not " + VERSION);
            }
            int ordinal = in.readUnsignedByte();
            if (ordinal >= JobState.values().length) {
                throw malformed(text, "it names no state");
            }
            long first = in.readLong();
            long second = in.readLong();
            String group = in.readBoolean() ? in.readUTF() : null;
            String id = in.readUTF();
            if (in.available() > 0) {
                throw malformed(text, "it has " + in.available() + " bytes too many");
            }
            cursor = new JobCursor(JobState.values()[ordinal], group, first, second, id);
        } catch (IOException e) {
            throw malformed(text, "it is cut short or garbled");
        }
        if (cursor.state != state) {
            throw new IllegalArgumentException(
                    "cursor was given for " + cursor.state + " jobs; a page of " + state + " jobs needs its own");
        }
        return cursor;
    }

    private static IllegalArgumentException malformed(String text, String why) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return new IllegalArgumentException("cursor '" + shown + "' is malformed: " + why
                + "; pass the 'next' of a page, or null for the first page");
    }
}
