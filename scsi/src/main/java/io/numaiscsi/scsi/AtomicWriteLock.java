package io.numaiscsi.scsi;

import java.util.ArrayDeque;

/**
 * Serialises the commands that must appear atomic on one logical unit (COMPARE AND WRITE, ORWRITE, WRITE ATOMIC)
 * without blocking a thread: a task that finds the lock taken waits in a queue and is handed the lock by the releasing
 * task. On the unit's thread only (I/O completions are brought back there), so it needs no monitor.
 */
final class AtomicWriteLock {
  private final ArrayDeque<ScsiTask> waiting = new ArrayDeque<>();
  private boolean held;

  /** true: the caller now holds the lock. false: the task was queued and will be started by release(). */
  boolean tryAcquire(ScsiTask task) {
    if (!held) {
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
}
