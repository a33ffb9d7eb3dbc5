package io.numaiscsi.scsi;

import java.util.concurrent.Executor;

/**
 * The one thread that owns a logical unit's state (its task set, unit attentions, reservations, the atomic write
 * queue): commands execute there, I/O completions come back there, and task management reaches it as messages
 * ({@link #execute}), so none of that state needs a lock.
 */
public interface LunThread extends Executor {

    /** Whether the calling thread is this one. */
    boolean isCurrent();

    /**
     * Runs {@code step} now when called on this thread, else queues it here. What this thread decodes runs inline, so a
     * step queued from this thread could be overtaken by the next command it decodes (under Netty's io_uring loop a
     * queued nexus loss ran after another initiator's RESERVE(6)).
     */
    default void runHereOrQueue(Runnable step) {
        if (isCurrent()) {
            step.run();
        } else {
            execute(step);
        }
    }

    /**
     * Runs everything on the calling thread. For tools and tests that drive a unit from one thread; a unit served by
     * several threads needs a real one.
     */
    LunThread CALLER = new LunThread() {
        @Override
        public boolean isCurrent() {
            return true;
        }

        @Override
        public void execute(Runnable r) {
            r.run();
        }

        @Override
        public String toString() {
            return "caller's thread";
        }
    };
}
