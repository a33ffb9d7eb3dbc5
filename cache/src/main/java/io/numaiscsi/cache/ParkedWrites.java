package io.numaiscsi.cache;

/** A FIFO of parked write-back writes, linked through {@link WriteBackWrite#nextParked}. Its partition's lock held. */
final class ParkedWrites {
  private WriteBackWrite head;
  private WriteBackWrite tail;

  void add(WriteBackWrite r) {
    r.nextParked = null;
    if (tail == null) {
      head = r;
    } else {
      tail.nextParked = r;
    }
    tail = r;
  }

  /** Takes the whole list (resume it after unlocking), or null. */
  WriteBackWrite takeAll() {
    WriteBackWrite h = head;
    head = null;
    tail = null;
    return h;
  }

  boolean isEmpty() {
    return head == null;
  }
}
