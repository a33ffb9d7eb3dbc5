package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.IoCompletion;
import io.numaiscsi.scsi.IoStatus;
import io.numaiscsi.scsi.SharedRead;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One read, write or unmap passing through the cache. Pooled and reused: it is its own Runnable
 * (when forwarded to a node's workers) and its own IoCompletion (for backing I/O it issues), so the
 * hot path allocates nothing once the pool is warm.
 */
final class CacheRequest implements Runnable, IoCompletion {
  enum Op { READ, WRITE, UNMAP }

  /** What ioComplete means right now. */
  private enum Wait { NOTHING, BYPASS, BACKING_WRITE, FLUSH, BACKING_UNMAP }

  /** What run() does: start the request, or (a read whose last block arrived on another node) copy it out. */
  private enum Stage { START, COPY }

  private final RequestPool pool;
  private final BlockDevice backing;
  private final CacheSpace space;
  private final FillCoordinator fills;
  /** Null under write-through. */
  private final WriteBackScheduler writeBacks;
  private final CacheCounters counters;
  private final NodeExecutors executors;
  private final int blockSize;
  Op op;
  long offset;
  long length;
  ByteBuf buf;
  int base;
  boolean fua;
  IoCompletion done;
  /** A shared read (served in place) reports here instead of {@link #done}; buf is null until a bypass needs one. */
  SharedRead shared;
  ByteBufAllocator alloc;
  boolean routed;
  int servingNode;
  private Stage stage;
  private Wait waiting = Wait.NOTHING;
  private long firstBlock;
  private int blocks;
  private int[] slots = new int[4];
  private final AtomicInteger pending = new AtomicInteger();
  private volatile IoStatus status;
  /** Write-back: the block being written, its base slot and the base's version at pin time. */
  private int cursor;
  private int baseSlot;
  private int baseVersion;
  CacheRequest nextParked;

  CacheRequest(RequestPool pool, BlockDevice backing, CacheSpace space, FillCoordinator fills,
               WriteBackScheduler writeBacks, CacheCounters counters, NodeExecutors executors) {
    this.pool = pool;
    this.backing = backing;
    this.space = space;
    this.fills = fills;
    this.writeBacks = writeBacks;
    this.counters = counters;
    this.executors = executors;
    this.blockSize = space.blockSize;
  }

  void reset() {
    buf = null;
    done = null;
    shared = null;
    alloc = null;
    routed = false;
    status = IoStatus.OK;
    nextParked = null;
    stage = Stage.START;
  }

  @Override
  public void run() {
    if (stage == Stage.COPY) {
      copyOut();
    } else {
      start();
    }
  }

  void start() {
    firstBlock = offset / blockSize;
    blocks = length == 0 ? 0 : (int) ((offset + length - 1) / blockSize - firstBlock + 1);
    switch (op) {
      case READ -> startRead();
      case WRITE -> {
        if (writeBacks != null) {
          cursor = 0;
          wbStep();
        } else {
          waiting = Wait.BACKING_WRITE;
          backing.write(offset, buf, fua, this);
        }
      }
      case UNMAP -> {
        if (writeBacks != null) {
          writeBacks.enqueueUnmap(this);
        } else {
          runUnmap();
        }
      }
      default -> throw new IllegalStateException("op " + op);
    }
  }

  /** Write-back unmaps run here only while no write-back batch is in flight. */
  void runUnmap() {
    waiting = Wait.BACKING_UNMAP;
    backing.unmap(offset, length, this);
  }

  @Override
  public void ioComplete(IoStatus st) {
    switch (waiting) {
      case BYPASS -> {
        record(st);
        arrive();
      }
      case BACKING_WRITE -> {
        fills.invalidate(offset, length, false);
        finish(st);
      }
      case BACKING_UNMAP -> {
        fills.invalidate(offset, length, true);
        boolean exclusive = writeBacks != null;
        finish(st);
        if (exclusive) {
          writeBacks.exclusiveDone();
        }
      }
      case FLUSH -> finish(st);
      default -> throw new IllegalStateException("unexpected completion, waiting " + waiting);
    }
  }

  private void record(IoStatus st) {
    if (st != IoStatus.OK && status == IoStatus.OK) {
      status = st;
    }
  }

  // ---- reads ----

  private void startRead() {
    if (buf != null) {
      buf.ensureWritable((int) length);
    }
    if (slots.length < blocks) {
      slots = new int[Math.max(blocks, slots.length * 2)];
    }
    pending.set(1);
    for (int i = 0; i < blocks; i++) {
      long block = firstBlock + i;
      CachePartition p = space.partitionOf(block);
      int fill = -1;
      p.lock.lock();
      try {
        int s = p.lookup(block);
        if (s >= 0) {
          p.pin(s);
          if (p.state[s] == CachePartition.VALID) {
            counters.hits[p.node].increment();
          } else {
            pending.incrementAndGet();
            p.io[s].addWaiter(this);
            counters.misses[p.node].increment();
          }
        } else {
          s = p.acquire();
          if (s >= 0) {
            p.startFill(s, block);
            pending.incrementAndGet();
            p.io[s].addWaiter(this);
            counters.misses[p.node].increment();
            fill = s;
          } else {
            counters.bypasses[p.node].increment();
          }
        }
        slots[i] = s;
      } finally {
        p.lock.unlock();
      }
      if (fill >= 0) {
        fills.issueFill(p, fill, block);
      } else if (slots[i] < 0) {
        bypass(block);
      }
    }
    arrive();
  }

  /** Every slot of the partition is pinned or filling: read this piece straight from the backing device. */
  private void bypass(long block) {
    long start = Math.max(offset, block * blockSize);
    long end = Math.min(offset + length, (block + 1) * blockSize);
    if (buf == null) {
      buf = alloc.directBuffer((int) length, (int) length); // a shared read falls back to one copy
      base = 0;
    }
    int at = base + (int) (start - offset);
    ByteBuf piece = buf.slice(at, (int) (end - start)).clear(); // the rare path may allocate
    pending.incrementAndGet();
    waiting = Wait.BYPASS;
    backing.read(start, (int) (end - start), piece, this);
  }

  /** A filled block this request waits on is ready (or failed). */
  void blockReady(IoStatus st) {
    if (op == Op.WRITE) {
      wbBaseReady(st);
      return;
    }
    record(st);
    arrive();
  }

  private void arrive() {
    if (pending.decrementAndGet() != 0) {
      return;
    }
    if (shared != null && buf == null) {
      serveInPlace();
      return;
    }
    int here = NodeThread.currentNode();
    if (here != servingNode && routed) {
      stage = Stage.COPY; // before the hand-off: the worker may run this request at once
      if (executors.execute(servingNode, this)) {
        return;
      }
    }
    copyOut();
  }

  private void copyOut() {
    int here = NodeThread.currentNode();
    int node = here >= 0 ? here : servingNode;
    boolean ok = status == IoStatus.OK;
    for (int i = 0; i < blocks; i++) {
      int s = slots[i];
      if (s < 0) {
        continue;
      }
      long block = firstBlock + i;
      CachePartition p = space.partitionOf(block);
      if (ok) {
        long start = Math.max(offset, block * blockSize);
        long end = Math.min(offset + length, (block + 1) * blockSize);
        int n = (int) (end - start);
        buf.setBytes(base + (int) (start - offset), p.views[s], (int) (start - block * blockSize), n);
        (p.node == node ? counters.localBytes : counters.remoteBytes)[p.node].add(n);
      }
      fills.unpin(p, s);
    }
    if (ok) {
      buf.writerIndex(base + (int) length);
    }
    finish(status);
  }

  /** Every block is pinned and valid (or the read failed): hand over the blocks themselves, pins included. */
  private void serveInPlace() {
    if (status != IoStatus.OK) {
      for (int i = 0; i < blocks; i++) {
        fills.unpin(space.partitionOf(firstBlock + i), slots[i]);
      }
      finish(status);
      return;
    }
    PinnedBlocks view = new PinnedBlocks(fills, alloc, blocks);
    for (int i = 0; i < blocks; i++) {
      long block = firstBlock + i;
      CachePartition p = space.partitionOf(block);
      long start = Math.max(offset, block * blockSize);
      long end = Math.min(offset + length, (block + 1) * blockSize);
      int n = (int) (end - start);
      view.add(p, slots[i], (int) (start - block * blockSize), n);
      counters.inPlaceBytes[p.node].add(n);
    }
    buf = view;
    finish(IoStatus.OK);
  }

  // ---- write-back writes: one block at a time, copy-on-write into a fresh slot ----

  void resume() {
    wbStep();
  }

  private void wbStep() {
    boolean parked = false;
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
        if (full) {
          int s = p.acquire();
          if (s < 0) {
            p.park(this);
            parked = true;
            break;
          }
          p.lock.unlock();
          try {
            p.views[s].setBytes(0, buf, base + (int) (start - offset), n);
          } finally {
            p.lock.lock();
          }
          p.install(s, block, true);
          p.unpin(s);
          cursor++;
          continue;
        }
        int b = p.lookup(block);
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
            parked = true;
            break;
          }
          p.startFill(b, block);
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
      if (!wbApply(p, block, start, n, inBlock)) {
        return;
      }
    }
    if (parked) {
      // another thread may already have resumed this request: touch no field from here on
      writeBacks.requestWriteback(); // make dirty blocks clean so slots come free
      return;
    }
    if (fua) {
      waiting = Wait.FLUSH;
      writeBacks.flush(this);
    } else {
      finish(IoStatus.OK);
    }
  }

  private void wbBaseReady(IoStatus st) {
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
    if (wbApply(p, block, start, (int) (end - start), (int) (start - blockStart))) {
      wbStep();
    }
  }

  /**
   * Base slot pinned and valid: copy it plus the new bytes into a fresh slot and install that if the
   * base is still current. false when parked (no slot); on a lost race the same block is retried.
   */
  private boolean wbApply(CachePartition p, long block, long start, int n, int inBlock) {
    int s;
    CacheRequest others = null;
    p.lock.lock();
    try {
      s = p.acquire();
      if (s < 0) {
        // The base may be the only reusable slot and this request needs two: a slot freed by this
        // unpin wakes the requests parked before, not this one (that would spin), which waits for a
        // write-back or another unpin.
        p.unpin(baseSlot);
        if (p.takeWakeDue()) {
          others = p.takeParked();
        }
        p.park(this);
      }
    } finally {
      p.lock.unlock();
    }
    if (s < 0) {
      fills.resumeAll(others);
      writeBacks.requestWriteback();
      return false;
    }
    int bytes = space.blockBytes(block);
    p.views[s].setBytes(0, p.views[baseSlot], 0, bytes);
    p.views[s].setBytes(inBlock, buf, base + (int) (start - offset), n);
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

  private void finish(IoStatus st) {
    IoCompletion d = done;
    SharedRead sr = shared;
    ByteBuf out = buf;
    pool.recycle(this);
    if (sr == null) {
      d.ioComplete(st);
      return;
    }
    if (st != IoStatus.OK && out != null) {
      out.release();
      out = null;
    }
    sr.sharedReadDone(st, out);
  }
}
