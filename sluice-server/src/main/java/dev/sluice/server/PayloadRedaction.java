package dev.sluice.server;

import dev.sluice.queue.Job;

/**
 * What the API and the dashboard show of a job's payload: a hook to hide secrets (card numbers, tokens, personal
 * data) from people who may read jobs. It applies wherever a payload is shown to a reader ({@code GET
 * .../jobs/{id}}, and so the dashboard's job view); workers in other languages still get the payload as stored.
 *
 * <pre>{@code
 * SluiceApiServlet.builder(sluice)
 *     .redaction((queue, job, payload) -> queue.equals("payments") ? "(hidden)".getBytes(UTF_8) : payload)
 *     .build();
 * }</pre>
 */
@FunctionalInterface
public interface PayloadRedaction {
    /** Shows every payload as stored. */
    PayloadRedaction NONE = (queue, job, payload) -> payload;

    /**
     * The bytes to show for {@code job}'s payload.
     *
     * @param queue the job's queue
     * @param job the job, for its name, group and state
     * @param payload the payload as stored
     * @return what to show instead, or {@code null} to show no payload at all
     */
    byte[] redact(String queue, Job<?> job, byte[] payload);
}
