package dev.sluice.redis.internal;

import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Confirms that replicas have the writes sent over one connection, with {@code WAIT}, which counts every write its
 * connection sent before it.
 *
 * <p>Why one {@code WAIT} serves many writes: a {@code WAIT} holds up its connection until it answers, so writes sent
 * meanwhile queue behind it in Redis. Writes are numbered as they are sent; a caller joins the latest {@code WAIT} if
 * that was sent after its write, and sends a new one otherwise, which then answers for every write sent before it.
 *
 * <p>A {@code WAIT} counts the writes of its own connection only. Lettuce connects again by itself after a loss, and
 * may send a pending {@code WAIT} again over the new connection (it does with its default options), where it cannot
 * count the old one's writes, and after a failover counts a new master's: a write is confirmed only by a {@code
 * WAIT} sent and answered while the connection it went over still lives, and the loss of the connection ends the
 * waits at once.
 */
final class ReplicaWait {
    /** A write sent: its number, and the life of the connection it went over (lives end when the connection is lost). */
    record Write(long number, long life) {}

    /** A call sent, and its write. */
    record Sent<T>(T reply, Write write) {}

    /** Fewer replicas than required have a write: how many do, and why no more could be counted. */
    record Shortfall(int acknowledged, int required, String why) {
        /** For example {@code "acknowledged by 0 of 1 replicas within 100 ms"}. */
        String text() {
            return "acknowledged by " + acknowledged + " of " + required + " replicas " + why;
        }
    }

    private final Connection connection;
    private final int replicas;
    private final long timeoutMillis;
    private final long answerNanos;
    private final String timeout;
    private final AtomicLong lives = new AtomicLong();

    /** Writes sent so far; guarded by this. */
    private long written;

    /** The latest WAIT sent; written under this. */
    private volatile Round latest;

    /** The WAITs sent and not answered yet. */
    private final Set<Round> unanswered = ConcurrentHashMap.newKeySet();

    /** A WAIT sent after {@code covers} writes of connection life {@code life}: how many replicas answered. */
    private record Round(long covers, long life, CompletableFuture<Long> acknowledged) {}

    /** The WAIT's connection was lost before it answered. */
    private static final class Lost extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Lost() {
            super(null, null, false, false);
        }
    }

    /**
     * Waits on {@code connection} for {@code replicas} replicas, at most {@code timeout}; an answer that takes longer
     * than that plus {@code commandTimeout} counts as none.
     */
    ReplicaWait(Connection connection, int replicas, Duration timeout, Duration commandTimeout) {
        this.connection = connection;
        this.replicas = replicas;
        this.timeoutMillis = Math.max(1, timeout.toMillis());
        this.answerNanos = timeout.toNanos() + commandTimeout.toNanos();
        this.timeout = DurationText.format(timeout);
        connection.whenLost(() -> {
            lives.incrementAndGet();
            for (Round round : unanswered) {
                round.acknowledged.completeExceptionally(new Lost());
            }
        });
    }

    /** Sends a write ({@code send} hands it to the connection) and numbers it. */
    synchronized <T> Sent<T> send(Supplier<T> send) {
        long life = lives.get();
        T reply = send.get();
        return new Sent<>(reply, new Write(++written, life));
    }

    /**
     * Waits until the replicas have {@code write}, or the wait's timeout passed.
     *
     * @return null if enough replicas acknowledged it, else how many did and why no more
     */
    Shortfall confirm(Write write) {
        Round round;
        synchronized (this) {
            round = latest;
            if (round == null || round.covers < write.number() || round.life != write.life()) {
                if (lives.get() != write.life()) {
                    return new Shortfall(0, replicas, "that could be counted: the connection to Redis was lost");
                }
                round = newRound();
                latest = round;
            }
        }
        long deadline = System.nanoTime() + answerNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    long acknowledged =
                            round.acknowledged.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return acknowledged >= replicas
                            ? null
                            : new Shortfall((int) acknowledged, replicas, "within " + timeout);
                } catch (InterruptedException e) {
                    // the write is made: its caller should learn whether the replicas have it
                    interrupted = true;
                }
            }
        } catch (TimeoutException e) {
            return new Shortfall(0, replicas, "that could be counted: WAIT did not answer in time");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause() : e.getCause();
            return new Shortfall(
                    0,
                    replicas,
                    cause instanceof Lost || lives.get() != round.life
                            ? "that could be counted: the connection to Redis was lost before WAIT answered"
                            : "that could be counted: WAIT failed (" + cause + ")");
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Under this: sends a WAIT for every write sent so far. */
    private Round newRound() {
        long life = lives.get();
        CompletableFuture<Long> acknowledged;
        try {
            acknowledged = connection
                    .waitForReplicas(replicas, timeoutMillis)
                    .toCompletableFuture()
                    .thenApply(count -> {
                        if (lives.get() != life) {
                            throw new Lost();
                        }
                        return count;
                    });
        } catch (RuntimeException e) {
            acknowledged = CompletableFuture.failedFuture(e);
        }
        Round round = new Round(written, life, acknowledged);
        unanswered.add(round);
        acknowledged.whenComplete((count, failure) -> unanswered.remove(round));
        if (lives.get() != life) {
            acknowledged.completeExceptionally(new Lost());
        }
        return round;
    }
}
