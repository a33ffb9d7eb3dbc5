package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.IoStatus;

/**
 * Single-flight fills and slot wake-up. A miss maps a slot as FILLING and issues one backing read for it; every
 * request that misses on the block meanwhile waits on the slot's {@link SlotIo} and is told when it is ready.
 * Requests parked for want of a slot are resumed here when one comes free (an unpin, a fill that failed, an
 * invalidation, a write-back).
 */
final class FillCoordinator {
  private static final ThreadLocal<ResumeQueue> RESUMING = ThreadLocal.withInitial(ResumeQueue::new);

  private final BlockDevice backing;
  private final CacheSpace space;

  FillCoordinator(BlockDevice backing, CacheSpace space) {
    this.backing = backing;
    this.space = space;
  }

  /** Reads the granules recorded on the slot's {@link SlotIo} into slot {@code s}, which the caller mapped as FILLING. */
  void issueFill(CachePartition p, int s, long block) {
    SlotIo io = p.io[s];
    io.writingBack = false;
    int from = io.fillFrom * space.granule;
    int to = Math.min(io.fillTo * space.granule, space.blockBytes(block));
    ByteBuf view = p.views[s];
    view.setIndex(from, from);
    backing.read(block * space.blockSize + from, to - from, view, io);
  }

  void fillDone(SlotIo io, IoStatus st) {
    CachePartition p = io.partition;
    int s = io.slot;
    int n;
    p.lock.lock();
    try {
      p.state[s] = CachePartition.VALID;
      if (st == IoStatus.OK) {
        p.valid.mark(s, io.fillFrom, io.fillTo);
      } else {
        p.unmapSlot(s);
      }
      n = io.takeWaiters();
    } finally {
      unlockAndWake(p);
    }
    for (int i = 0; i < n; i++) {
      io.waiter(i).blockReady(st);
    }
  }

  void unpin(CachePartition p, int s) {
    p.lock.lock();
    try {
      p.unpin(s);
    } finally {
      unlockAndWake(p);
    }
  }

  /** Unlocks the partition, then resumes its parked requests if a slot came free meanwhile. */
  void unlockAndWake(CachePartition p) {
    boolean due = p.takeWakeDue();
    p.lock.unlock();
    if (due) {
      wake(p);
    }
  }

  /** Resumes the partition's parked write-back writes (a slot came free). */
  void wake(CachePartition p) {
    WriteBackWrite r;
    p.lock.lock();
    try {
      r = p.takeParked();
      p.takeWakeDue();
    } finally {
      p.lock.unlock();
    }
    resumeAll(r);
  }

  /** Resumes the partition's writes waiting for dirty room (the device's dirty bytes went down). */
  void wakeForDirtyRoom(CachePartition p) {
    WriteBackWrite r;
    p.lock.lock();
    try {
      r = p.takeParkedForDirtyRoom();
    } finally {
      p.lock.unlock();
    }
    resumeAll(r);
  }

  /** Wakes every parked request, for a slot or for dirty room (after a write-back batch that cleaned blocks). */
  void wakeAllParked() {
    for (CachePartition p : space.partitions) {
      // under the partition's lock: a request parked a moment ago is seen
      wakeForDirtyRoom(p);
      wake(p);
    }
  }

  /**
   * Resumes parked requests one after another, never one inside another: a resumed write may park again and run
   * a write-back batch inline, which frees slots and resumes more; nested, a long chain of parked writes
   * overflowed the stack. Requests to resume while this thread is already resuming join its queue.
   */
  void resumeAll(WriteBackWrite list) {
    if (list == null) {
      return;
    }
    ResumeQueue q = RESUMING.get();
    q.append(list);
    if (q.draining) {
      return;
    }
    q.draining = true;
    try {
      WriteBackWrite r;
      while ((r = q.poll()) != null) {
        r.resume();
      }
    } finally {
      q.draining = false;
    }
  }

  /**
   * After a write-through write or an unmap reached the backing device: cached copies of the range
   * go. A block no one uses keeps the rest: the granules the range touches are marked not valid (the next read of
   * them fills them again; dropping the whole 512 KiB block for a 4 KiB write made the next read of it fill the whole
   * block again). A block written whole, in use or being filled is unmapped (its possibly older data serves only the
   * requests already holding or waiting on it). Dirty blocks (write-back) are never dropped: an unmap zeroes
   * its bytes in them, so the next write-back writes zeros.
   */
  void invalidate(long offset, long length, boolean unmap) {
    if (length == 0) {
      return;
    }
    int blockSize = space.blockSize;
    long first = offset / blockSize;
    long last = (offset + length - 1) / blockSize;
    for (long block = first; block <= last; block++) {
      long blockStart = block * blockSize;
      long start = Math.max(offset, blockStart);
      long end = Math.min(offset + length, blockStart + blockSize);
      boolean whole = start == blockStart && end - start == space.blockBytes(block);
      CachePartition p = space.partitionOf(block);
      p.lock.lock();
      try {
        int s = p.lookup(block);
        if (s < 0) {
          continue;
        }
        if (p.dirty[s]) {
          if (unmap) {
            if (whole && !p.writeback[s]) {
              // Wholly unmapped: its dirty data is superseded. Written back as zeros it would allocate the blocks the
              // backing store just deallocated (GET LBA STATUS would call them mapped, as SANITIZE BLOCK ERASE must not).
              p.unmapSlot(s);
            } else {
              p.views[s].setZero((int) (start - blockStart), (int) (end - start));
              p.version[s]++;
            }
          }
        } else if (p.state[s] == CachePartition.VALID && p.pins[s] == 0 && !whole) {
          int g = space.granule;
          p.valid.clear(s, (int) (start - blockStart) / g, (int) (end - blockStart + g - 1) / g);
        } else {
          p.unmapSlot(s);
        }
      } finally {
        unlockAndWake(p);
      }
    }
  }

  /** This thread's requests waiting to be resumed, linked through {@code nextParked}. */
  private static final class ResumeQueue {
    private WriteBackWrite head;
    private WriteBackWrite tail;
    private boolean draining;

    void append(WriteBackWrite list) {
      if (head == null) {
        head = list;
      } else {
        tail.nextParked = list;
      }
      WriteBackWrite last = list;
      while (last.nextParked != null) {
        last = last.nextParked;
      }
      tail = last;
    }

    WriteBackWrite poll() {
      WriteBackWrite r = head;
      if (r != null) {
        head = r.nextParked;
        if (head == null) {
          tail = null;
        }
        r.nextParked = null;
      }
      return r;
    }
  }
}
