/**
 * A JSON codec for Sluice's queues, through Jackson: {@link dev.sluice.jackson.JsonCodec} encodes job payloads and
 * results (records, {@code java.time} types, generic types) as JSON documents, under a name that is the same in
 * every process.
 */
package dev.sluice.jackson;
