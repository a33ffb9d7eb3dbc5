package io.numaiscsi.scsi;

import java.util.Collection;

/**
 * The tasks one logical unit is executing (SAM-5 task set): entered when a task passes admission, left when it
 * completes. Confined to the unit's {@link LunThread}. An intrusive list through the tasks themselves, so entering and
 * leaving allocate nothing.
 */
final class TaskSet {
  private ScsiTask head;
  private int size;
  private Runnable whenEmpty;

  void enter(ScsiTask t) {
    t.nextInSet = head;
    t.prevInSet = null;
    if (head != null) {
      head.prevInSet = t;
    }
    head = t;
    t.inSet = true;
    size++;
  }

  /**
   * Removes a completing task. Returns the task that waited for its abort when this was the last one it waited for
   * (the caller completes it after telling the transport about this one), else null.
   */
  ScsiTask leave(ScsiTask t) {
    if (!t.inSet) {
      return null;
    }
    if (t.prevInSet != null) {
      t.prevInSet.nextInSet = t.nextInSet;
    } else {
      head = t.nextInSet;
    }
    if (t.nextInSet != null) {
      t.nextInSet.prevInSet = t.prevInSet;
    }
    t.prevInSet = null;
    t.nextInSet = null;
    t.inSet = false;
    size--;
    ScsiTask waiter = t.abortWaiter;
    t.abortWaiter = null;
    if (size == 0 && whenEmpty != null) {
      Runnable r = whenEmpty;
      whenEmpty = null;
      r.run();
    }
    return waiter != null && --waiter.abortsPending == 0 ? waiter : null;
  }

  /**
   * Aborts every task of the given I_T nexuses except {@code waiter}; {@code waiter} is completed (GOOD) once the last of
   * them has left. Returns how many it waits for; 0 means the caller completes it now.
   */
  int abortTasksOf(Collection<ItNexus> nexuses, ScsiTask waiter) {
    int n = 0;
    for (ScsiTask t = head; t != null; t = t.nextInSet) {
      if (t != waiter && t.abortWaiter == null && nexuses.contains(t.nexus)) {
        t.abort();
        t.abortWaiter = waiter;
        n++;
      }
    }
    waiter.abortsPending = n;
    return n;
  }

  int size() {
    return size;
  }

  /** Runs {@code r} once no task is left (now, if none is). */
  void whenEmpty(Runnable r) {
    if (size == 0) {
      r.run();
    } else {
      whenEmpty = r;
    }
  }
}
