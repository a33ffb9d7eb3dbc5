package io.numaiscsi.cache;

import io.numaiscsi.numa.DataTouches;

import io.numaiscsi.scsi.IoCompletion;
import io.numaiscsi.scsi.IoStatus;

/**
 * A write under write-back: one block at a time, each written block becomes a fresh dirty copy (copy-on-write, so
 * readers never see a half-updated block). A partial block is read-modify-write: its base is filled first when not
 * cached or cached only in part (a clean partial copy is dropped and the whole block read), and the new copy is
 * installed only if the base is still current (else the block is retried). Without a free slot, or when one more
 * dirty block would pass the device's hard dirty limit, the write parks on the partition and asks for a write-back
 * batch; it resumes when a slot comes free.
 * A FUA write then flushes everything before it completes.
 */
final class WriteBackWrite extends RoutedRequest implements IoCompletion, FillWaiter {
  private final RequestPool<WriteBackWrite> pool;
  private final CacheSpace space;
  private final FillCoordinator fills;
  private final WriteBackScheduler writeBacks;
  private final int blockSize;
  int base;
  boolean fua;
  private long firstBlock;
  private int blocks;
  /** The block being written, its base slot and the base's version at pin time. */
  private int cursor;
  private int baseSlot;
  private int baseVersion;
  /** Next in its partition's parked list or in a resume queue. */
  WriteBackWrite nextParked;

  WriteBackWrite(RequestPool<WriteBackWrite> pool, CacheSpace space, FillCoordinator fills,
                 WriteBackScheduler writeBacks) {
    this.pool = pool;
    this.space = space;
    this.fills = fills;
    this.writeBacks = writeBacks;
    this.blockSize = space.blockSize;
  }

  @Override
  public void reset() {
    super.reset();
    nextParked = null;
  }

  @Override
  void start() {
    firstBlock = offset / blockSize;
    blocks = length == 0 ? 0 : (int) ((offset + length - 1) / blockSize - firstBlock + 1);
    cursor = 0;
    step();
  }

  /** A slot came free in the partition this write parked on. */
  void resume() {
    step();
  }

  private void step() {
    CachePartition parkedOn = null;
    boolean overDirtyLimit = false;
    while (cursor < blocks) {
      long block = firstBlock + cursor;
      CachePartition p = space.partitionOf(block);
      long blockStart = block * blockSize;
      long start = Math.max(offset, blockStart);
      long end = Math.min(offset + length, blockStart + blockSize);
      int n = (int) (end - start);
      int inBlock = (int) (start - blockStart);
      boolean full = inBlock == 0 && n == space.blockBytes(block);
      int fill = -1;
      p.lock.lock();
      try {
        // every block written becomes a new dirty block: no slot work (fills, evictions) without room for it
        if (!space.dirty.admitsBlock()) {
          p.parkForDirtyRoom(this);
          parkedOn = p;
          overDirtyLimit = true;
          break;
        }
        if (full) {
          int s = p.acquire();
          if (s < 0) {
            p.park(this);
            parkedOn = p;
            break;
          }
          p.lock.unlock();
          try {
            p.views[s].setBytes(0, buf, base + (int) (start - offset), n);
            space.touches.touched(DataTouches.Kind.COPY, buf, base + (int) (start - offset), n);
            space.touches.touched(DataTouches.Kind.COPY, p.node, n);
          } finally {
            p.lock.lock();
          }
          p.install(s, block, true);
          p.unpin(s);
          cursor++;
          continue;
        }
        int b = p.lookup(block);
        if (b >= 0 && !fullBase(p, b, block)) {
          // clean and only partly valid: the backing device is authoritative, so drop it and fill the whole block
          p.unmapSlot(b);
          b = -1;
        }
        if (b >= 0) {
          p.pin(b);
          baseSlot = b;
          baseVersion = p.version[b];
          if (p.state[b] == CachePartition.FILLING) {
            p.io[b].addWaiter(this);
            return;
          }
        } else {
          b = p.acquire();
          if (b < 0) {
            p.park(this);
            parkedOn = p;
            break;
          }
          p.startFill(b, block, 0, space.granules(block));
          p.io[b].addWaiter(this);
          baseSlot = b;
          baseVersion = p.version[b];
          fill = b;
        }
      } finally {
        if (p.lock.isHeldByCurrentThread()) {
          fills.unlockAndWake(p);
        }
      }
      if (fill >= 0) {
        fills.issueFill(p, fill, block);
        return;
      }
      if (!apply(p, block, start, n, inBlock)) {
        return;
      }
    }
    if (parkedOn != null) {
      // another thread may already have resumed this request: touch no field from here on
      wakeIfDirtyRoomCameMeanwhile(parkedOn, overDirtyLimit);
      writeBacks.requestWriteback(); // make dirty blocks clean so slots come free
      return;
    }
    if (fua) {
      writeBacks.flush(this);
    } else {
      finish(IoStatus.OK);
    }
  }

  /**
   * A write parked for dirty room is woken by the batch that cleans blocks, but that batch may have
   * cleaned them (in other partitions) and looked for parked requests between this write's check and its park.
   * Parked first, checked second: either the check sees the room or the batch's wake-up sees the parked request.
   */
  private void wakeIfDirtyRoomCameMeanwhile(CachePartition p, boolean overDirtyLimit) {
    if (overDirtyLimit && space.dirty.hasRoomForBlock()) {
      fills.wakeForDirtyRoom(p);
    }
  }

  /** Lock held: whether slot b holds (or its fill in flight will hold) the whole block, as a base must. */
  private boolean fullBase(CachePartition p, int b, long block) {
    int all = space.granules(block);
    if (p.state[b] == CachePartition.FILLING) {
      return p.io[b].fillCovers(0, all);
    }
    return p.dirty[b] || p.valid.covers(b, 0, all);
  }

  /** The base of a partial block is filled (or failed). */
  @Override
  public void blockReady(IoStatus st) {
    CachePartition p = space.partitionOf(firstBlock + cursor);
    if (st != IoStatus.OK) {
      fills.unpin(p, baseSlot);
      finish(st);
      return;
    }
    long block = firstBlock + cursor;
    long blockStart = block * blockSize;
    long start = Math.max(offset, blockStart);
    long end = Math.min(offset + length, blockStart + blockSize);
    if (apply(p, block, start, (int) (end - start), (int) (start - blockStart))) {
      step();
    }
  }

  /**
   * Base slot pinned and valid: copy it plus the new bytes into a fresh slot and install that if the
   * base is still current. false when parked (no slot); on a lost race the same block is retried.
   */
  private boolean apply(CachePartition p, long block, long start, int n, int inBlock) {
    int s;
    boolean room;
    WriteBackWrite others = null;
    p.lock.lock();
    try {
      room = space.dirty.admitsBlock();
      s = room ? p.acquire() : -1;
      if (s < 0) {
        // The base may be the only reusable slot and this request needs two: a slot freed by this
        // unpin wakes the requests parked before, not this one (that would spin), which waits for a
        // write-back or another unpin. Without dirty room it waits for room instead.
        p.unpin(baseSlot);
        if (p.takeWakeDue()) {
          others = p.takeParked();
        }
        if (room) {
          p.park(this);
        } else {
          p.parkForDirtyRoom(this);
        }
      }
    } finally {
      p.lock.unlock();
    }
    if (s < 0) {
      fills.resumeAll(others);
      wakeIfDirtyRoomCameMeanwhile(p, !room);
      writeBacks.requestWriteback();
      return false;
    }
    int bytes = space.blockBytes(block);
    p.views[s].setBytes(0, p.views[baseSlot], 0, bytes);
    p.views[s].setBytes(inBlock, buf, base + (int) (start - offset), n);
    space.touches.touched(DataTouches.Kind.COPY, p.node, 2L * bytes + n); // base to copy, then the new bytes in
    space.touches.touched(DataTouches.Kind.COPY, buf, base + (int) (start - offset), n);
    p.lock.lock();
    try {
      if (p.lookup(block) == baseSlot && p.version[baseSlot] == baseVersion) {
        p.install(s, block, true);
        p.unpin(s);
        cursor++;
      } else {
        p.abandon(s);
      }
      p.unpin(baseSlot);
    } finally {
      fills.unlockAndWake(p);
    }
    return true;
  }

  /** The FUA flush finished. */
  @Override
  public void ioComplete(IoStatus st) {
    finish(st);
  }

  private void finish(IoStatus st) {
    IoCompletion d = done;
    pool.recycle(this);
    d.ioComplete(st);
  }
}
