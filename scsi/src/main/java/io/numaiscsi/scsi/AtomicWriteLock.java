package io.numaiscsi.scsi;

import java.util.ArrayDeque;

/**
 * Keeps the commands that must appear atomic on one logical unit (COMPARE AND WRITE, ORWRITE, WRITE ATOMIC) apart from
 * each other and from every other command that changes blocks (WRITE, WRITE AND VERIFY, WRITE SAME, UNMAP: "plain
 * writes"), without blocking a thread. An atomic command starts once it holds the lock and no plain write is in
 * flight; while one holds the lock or waits for it, new plain writes are parked and start when none is left. A store
 * below (a file, a cache) may carry overlapping requests out in any order or in pieces, so no plain write may be in
 * flight beside an atomic one. On the unit's thread only (I/O completions are brought back there), so it needs no
 * monitor.
 */
final class AtomicWriteLock {
    private final ArrayDeque<ScsiTask> waiting = new ArrayDeque<>();
    private final ArrayDeque<ScsiTask> parkedWrites = new ArrayDeque<>();
    private boolean held;
    private int plainWrites;

    /** true: the caller now holds the lock. false: the task was queued and will be handed the lock later. */
    boolean tryAcquire(ScsiTask task) {
        if (!held && plainWrites == 0 && waiting.isEmpty()) {
            held = true;
            return true;
        }
        waiting.add(task);
        return false;
    }

    /** Releases the lock, or hands it to the next waiting task, which the caller must then start. */
    ScsiTask release() {
        ScsiTask next = waiting.poll();
        if (next == null) {
            held = false;
        }
        return next;
    }

    /**
     * true: the plain write may start now (it is counted until {@link #plainWriteDone}). false: an atomic command holds
     * or wants the lock; the task is parked, and {@link #nextParkedWrite} gives it back once the lock is free.
     */
    boolean admitPlainWrite(ScsiTask task) {
        if (held || !waiting.isEmpty()) {
            parkedWrites.add(task);
            return false;
        }
        plainWrites++;
        return true;
    }

    /** A plain write admitted above completed. Returns the atomic task that now holds the lock and must start, or null. */
    ScsiTask plainWriteDone() {
        plainWrites--;
        if (plainWrites == 0 && !held && !waiting.isEmpty()) {
            held = true;
            return waiting.poll();
        }
        return null;
    }

    /** A parked plain write to start again (it is admitted anew), or null while the lock is held or wanted. */
    ScsiTask nextParkedWrite() {
        return held || !waiting.isEmpty() ? null : parkedWrites.poll();
    }
}
