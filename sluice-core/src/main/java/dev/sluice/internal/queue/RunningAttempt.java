package dev.sluice.internal.queue;

/**
 * The attempt a worker's slot has inside its processor, and interrupting exactly that attempt (a timeout, the close
 * deadline): an interrupt meant for an attempt that has left the processor reaches nothing, never the slot's next
 * attempt, and one that was sent is cleared when its attempt leaves. Every engine's slots use it.
 */
public final class RunningAttempt {
    /** The slot's thread, as of its last {@link #enter}. */
    private volatile Thread thread;

    /** The job inside the processor now, and its attempt's token; written by the slot's thread only. */
    private volatile Object running;

    private long runningToken;

    /** Set by an interrupting thread while it holds this object's monitor. */
    private volatile boolean interrupting;

    /** Whether the attempt now leaving the processor was interrupted; written under this object's monitor. */
    private volatile boolean interruptSent;

    /** The calling thread, the slot's, enters attempt {@code token} of {@code job} (the same object interrupts name). */
    public void enter(Object job, long token) {
        thread = Thread.currentThread();
        runningToken = token;
        running = job;
    }

    /**
     * The attempt left the processor (called by the slot's thread). An interrupter that saw it running has either
     * finished (and set {@link #interruptSent}) or is still inside the monitor ({@link #interrupting}): either way
     * this waits for it and clears its interrupt, so that it cannot reach the slot's next attempt. An interrupt
     * this did not send stays.
     */
    public void leave() {
        running = null;
        if (interrupting || interruptSent) {
            synchronized (this) {
                if (interruptSent) {
                    interruptSent = false;
                    Thread.interrupted();
                }
            }
        }
    }

    /** Interrupts the slot's thread if it still runs attempt {@code token} of {@code job}. */
    public void interrupt(Object job, long token) {
        synchronized (this) {
            interrupting = true;
            try {
                if (running == job && runningToken == token) {
                    interruptSent = true;
                    thread.interrupt();
                }
            } finally {
                interrupting = false;
            }
        }
    }
}
