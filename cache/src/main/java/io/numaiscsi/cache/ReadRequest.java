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
 * A read through the cache: each block a hit (pinned), a miss (a fill started or joined) or a bypass (read
 * straight from the backing device when every slot of its partition is in use). When all have arrived, the bytes
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
  int base;
  /** A shared read (served in place) reports here instead of {@link #done}; buf is null until a bypass needs one. */
  SharedRead shared;
  ByteBufAllocator alloc;
  private Stage stage;
  private long firstBlock;
  private int blocks;
  private int[] slots = new int[4];
  private final AtomicInteger pending = new AtomicInteger();
  private volatile IoStatus status;

  ReadRequest(RequestPool<ReadRequest> pool, BlockDevice backing, CacheSpace space, FillCoordinator fills,
              CacheCounters counters, NodeExecutors executors) {
    this.pool = pool;
    this.backing = backing;
    this.space = space;
    this.fills = fills;
    this.counters = counters;
    this.executors = executors;
    this.blockSize = space.blockSize;
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
    backing.read(start, (int) (end - start), piece, this);
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
