package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.scsi.IoCompletion;
import io.numaiscsi.scsi.IoStatus;
import io.numaiscsi.scsi.SharedRead;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A read through the cache: each block a hit (pinned), a miss that fills (the whole block or some granules) or
 * joins a fill, a read-through (a miss the {@link ReadAdmission} gives no slot) or a bypass (every slot of its
 * partition in use); read-throughs and bypasses go straight from the backing device into the caller's buffer. When all have arrived, the bytes
 * are copied once into the caller's buffer, or, for a shared read, handed over in place as {@link PinnedBlocks}.
 * Its own Runnable (forwarded, or handed back for the copy) and its own IoCompletion (bypass reads).
 */
final class ReadRequest extends RoutedRequest implements IoCompletion, FillWaiter {
  /** What run() does: start, or copy out on the serving node after the last block arrived on another node. */
  private enum Stage { START, COPY }

  private final RequestPool<ReadRequest> pool;
  private final BlockDevice backing;
  private final CacheSpace space;
  private final FillCoordinator fills;
  private final CacheCounters counters;
  private final NodeExecutors executors;
  private final int blockSize;
  private final int granule;
  private final ReadAdmission admission;
  int base;
  /** Whether the read continues a sequential stream (the device asked its {@link ReadAdmission} once, on arrival). */
  boolean sequential;
  /** A shared read (served in place) reports here instead of {@link #done}; buf is null until a bypass needs one. */
  SharedRead shared;
  ByteBufAllocator alloc;
  private Stage stage;
  private long firstBlock;
  private int blocks;
  private int[] slots = new int[4];
  private final AtomicInteger pending = new AtomicInteger();
  private volatile IoStatus status;
  /** The slot whose fill the piece being looked at must issue, or -1. */
  private int fill;
  /** The pending run of pieces read straight from the backing device, [runStart, runEnd), or -1. */
  private long runStart;
  private long runEnd;
  /** More than one such run: each reads into its own slice. */
  private boolean splitRuns;

  ReadRequest(RequestPool<ReadRequest> pool, BlockDevice backing, CacheSpace space, FillCoordinator fills,
              CacheCounters counters, NodeExecutors executors, ReadAdmission admission) {
    this.pool = pool;
    this.backing = backing;
    this.space = space;
    this.fills = fills;
    this.counters = counters;
    this.executors = executors;
    this.blockSize = space.blockSize;
    this.granule = space.granule;
    this.admission = admission;
  }

  @Override
  public void reset() {
    super.reset();
    shared = null;
    alloc = null;
    status = IoStatus.OK;
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

  @Override
  void start() {
    firstBlock = offset / blockSize;
    blocks = length == 0 ? 0 : (int) ((offset + length - 1) / blockSize - firstBlock + 1);
    if (buf != null) {
      buf.ensureWritable((int) length);
    }
    if (slots.length < blocks) {
      slots = new int[Math.max(blocks, slots.length * 2)];
    }
    runStart = -1;
    runEnd = -1;
    splitRuns = false;
    pending.set(1);
    for (int i = 0; i < blocks; i++) {
      long block = firstBlock + i;
      CachePartition p = space.partitionOf(block);
      long blockStart = block * blockSize;
      int from = (int) (Math.max(offset, blockStart) - blockStart);
      int to = (int) (Math.min(offset + length, blockStart + blockSize) - blockStart);
      int g0 = from / granule;
      int g1 = (to + granule - 1) / granule;
      int all = space.granules(block);
      boolean whole = from == 0 && to == space.blockBytes(block);
      int s;
      fill = -1;
      p.lock.lock();
      try {
        s = p.lookup(block);
        if (s >= 0) {
          s = resident(p, s, block, g0, g1, all);
        } else if (admission.fills(p, block, g0, g1, whole, sequential)) {
          s = p.acquire();
          if (s >= 0) {
            // a sequential stream reads the rest of the block ahead; an admitted small miss fills only its granules
            p.startFill(s, block, whole || sequential ? 0 : g0, whole || sequential ? all : g1);
            waitFor(p, s);
            fill = s;
          } else {
            counters.bypasses[p.node].increment();
          }
        } else {
          admission.readThrough(block, g0, g1);
          counters.readThrough(p.node);
        }
        slots[i] = s;
      } finally {
        p.lock.unlock();
      }
      if (fill >= 0) {
        fills.issueFill(p, fill, block);
      } else if (s < 0) {
        direct(blockStart + from, blockStart + to);
      }
    }
    if (runStart >= 0) {
      issueRun();
    }
    arrive();
  }

  /**
   * A piece of a cached block, lock held: a hit if its granules are valid; else wait for the fill in flight if that
   * reads them; else, if no one else uses the slot, fill the rest of the block into it: a sequential read from its
   * granules on, a random one every granule not yet valid, in one backing read (the slot is there already, so the
   * fill evicts nothing, and a block of a LUN larger than the cache is whole from its second miss on, where filling
   * granule by granule took a backing read each and left blocks partly empty for many seconds); else -1, read
   * through. Sets {@link #fill} when a fill must be issued.
   */
  private int resident(CachePartition p, int s, long block, int g0, int g1, int all) {
    if (p.valid.covers(s, g0, g1)) {
      p.pin(s);
      counters.hits[p.node].increment();
      return s;
    }
    if (p.state[s] == CachePartition.FILLING) {
      if (p.io[s].fillCovers(g0, g1)) {
        p.pin(s);
        waitFor(p, s);
        return s;
      }
    } else if (p.pins[s] == 0 && !p.dirty[s] && !p.writeback[s]) {
      p.pin(s);
      if (sequential) {
        p.startSubFill(s, g0, all); // the stream reads the rest of the block ahead
      } else {
        p.startSubFill(s, p.valid.firstInvalid(s, 0, all), p.valid.invalidEnd(s, 0, all));
      }
      waitFor(p, s);
      fill = s;
      return s;
    }
    admission.readThrough(block, g0, g1);
    counters.readThrough(p.node);
    return -1;
  }

  /** Lock held: this read waits for the fill of slot s (pinned), a miss. */
  private void waitFor(CachePartition p, int s) {
    pending.incrementAndGet();
    p.io[s].addWaiter(this);
    counters.misses[p.node].increment();
  }


  /**
   * The device bytes [start, end) go straight from the backing device to the caller's buffer (read-through or
   * bypass). Adjacent pieces join one backing read; a read with one such run (the common case) reads into the
   * caller's buffer itself, without a slice.
   */
  private void direct(long start, long end) {
    if (start == runEnd) {
      runEnd = end;
      return;
    }
    if (runStart >= 0) {
      splitRuns = true;
      issueRun();
    }
    runStart = start;
    runEnd = end;
  }

  private void issueRun() {
    if (buf == null) {
      buf = alloc.directBuffer((int) length, (int) length); // a shared read falls back to one copy
      base = 0;
    }
    int at = base + (int) (runStart - offset);
    int n = (int) (runEnd - runStart);
    pending.incrementAndGet();
    if (splitRuns) {
      backing.read(runStart, n, buf.slice(at, n).clear(), this); // rare: cached pieces between direct ones
    } else {
      buf.writerIndex(at); // the backing device writes at the writer index; copyOut sets the final one
      backing.read(runStart, n, buf, this);
    }
    runStart = -1;
    runEnd = -1;
  }

  /** A bypass read finished. */
  @Override
  public void ioComplete(IoStatus st) {
    record(st);
    arrive();
  }

  @Override
  public void blockReady(IoStatus st) {
    record(st);
    arrive();
  }

  private void record(IoStatus st) {
    if (st != IoStatus.OK && status == IoStatus.OK) {
      status = st;
    }
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
        int at = base + (int) (start - offset);
        buf.setBytes(at, p.views[s], (int) (start - block * blockSize), n);
        space.touches.touched(DataTouches.Kind.COPY, p.node, n);
        space.touches.touched(DataTouches.Kind.COPY, buf, at, n);
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
