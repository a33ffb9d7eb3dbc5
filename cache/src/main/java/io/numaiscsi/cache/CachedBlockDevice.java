package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.scsi.IoCompletion;
import io.numaiscsi.scsi.IoStatus;
import io.numaiscsi.scsi.SharedRead;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitioned per-node block cache in front of a LUN's backing device (which does O_DIRECT).
 * Reads pin hit blocks and copy once into the caller's buffer, or, as shared reads, hand over a buffer over the
 * pinned blocks themselves (for a transport that sends straight from them); misses fill whole cache blocks from
 * the backing device asynchronously, one backing read per block however many requests miss on it.
 * Requests of at least the route threshold are forwarded once to the executor of the node holding
 * most of their bytes; smaller ones run on the calling thread.
 *
 * <p>Write-through: the backing device is written first, then the cached copies of the touched
 * blocks are invalidated, then the write completes. Write-back: every written block becomes a
 * fresh dirty copy (copy-on-write, so readers never see a half-updated block; partial blocks are
 * read-modify-write, filling the block first when it is not cached); dirty blocks are written back
 * in batches on flush, FUA, slot pressure and close. Batches and write-back unmaps are serialized,
 * so two versions of one block are never in flight to the backing device at once.
 */
public final class CachedBlockDevice implements BlockDevice {
  private static final Logger LOG = LoggerFactory.getLogger(CachedBlockDevice.class);
  private static final int POOL_LIMIT = 1024;

  private final BlockDevice backing;
  private final CacheParameters params;
  private final int blockSize;
  private final long size;
  private final PartitionHash hash;
  private final AffinityRouter router;
  private final CacheRegion[] regions;
  private final CachePartition[] partitions;
  private final CacheCounters counters;
  private final Executor[] nodeExecutors;
  private final NodeMemory memory;
  private final boolean writeBack;
  private final CacheRequest[] pool = new CacheRequest[POOL_LIMIT];
  private int pooled;
  private final AtomicInteger inflight = new AtomicInteger();
  private volatile boolean closed;

  // write-back serializer: one batch or unmap at a time
  private final Object serial = new Object();
  private boolean exclusiveRunning;
  private boolean batchWanted;
  private final ArrayDeque<IoCompletion> flushWaiters = new ArrayDeque<>();
  private final ArrayDeque<CacheRequest> unmapQueue = new ArrayDeque<>();
  private final ArrayDeque<IoCompletion> batchWaiters = new ArrayDeque<>();
  private final SlotIo[] batch;
  private final AtomicInteger batchPending = new AtomicInteger();
  private volatile IoStatus batchStatus = IoStatus.OK;
  /** Whether the running batch wrote anything back; an empty batch frees no slot, so it wakes nobody. */
  private volatile boolean batchCleaned;
  private final BatchFlush batchFlush = new BatchFlush();

  private CachedBlockDevice(BlockDevice backing, CacheParameters params, NumaTopology topology, NodeMemory memory,
                            Executor[] nodeExecutors) {
    this.backing = backing;
    this.params = params;
    this.blockSize = params.blockSize();
    this.size = backing.blockCount() * backing.blockSize();
    this.memory = memory;
    this.writeBack = params.writePolicy() == WritePolicy.WRITE_BACK;
    int nodes = topology.nodeCount();
    if (nodeExecutors != null && nodeExecutors.length != nodes) {
      throw new IllegalArgumentException("one executor per node needed: " + nodeExecutors.length + " for " + nodes);
    }
    this.nodeExecutors = nodeExecutors == null ? null : nodeExecutors.clone();
    this.hash = new PartitionHash(nodes, params.partitionsPerNode(), params.neighbours());
    this.router = new AffinityRouter(hash, blockSize, params.routeThreshold());
    this.counters = new CacheCounters(nodes);
    this.regions = new CacheRegion[nodes];
    this.partitions = new CachePartition[hash.totalPartitions()];
    for (int n = 0; n < nodes; n++) {
      regions[n] = new CacheRegion(n, params, memory, counters, this);
    }
    for (int p = 0; p < partitions.length; p++) {
      partitions[p] = regions[hash.nodeOfPartition(p)].partitions[hash.indexInNode(p)];
    }
    this.batch = new SlotIo[partitions.length * params.slotsPerPartition()];
  }

  /**
   * Wraps {@code backing} (which the cache then owns and closes). Regions are allocated now, one per
   * node of {@code topology}, through {@code memory}. {@code nodeExecutors[n]} runs requests routed
   * to node n (its threads should be {@link NodeThread}s pinned to n); null disables forwarding.
   */
  public static CachedBlockDevice create(BlockDevice backing, CacheParameters params, NumaTopology topology,
                                         NodeMemory memory, Executor[] nodeExecutors) {
    Objects.requireNonNull(backing, "backing");
    if (backing.blockSize() > params.blockSize()) {
      throw new IllegalArgumentException("cache block " + params.blockSize() + " smaller than the logical block "
          + backing.blockSize());
    }
    CachedBlockDevice d = new CachedBlockDevice(backing, params, topology, memory, nodeExecutors);
    LOG.info("cache: {} nodes x {} bytes, {} partitions/node of {} blocks of {} bytes, {}, memory {}",
        topology.nodeCount(), params.sizePerNode(), params.partitionsPerNode(), params.slotsPerPartition(),
        params.blockSize(), params.writePolicy(), memory.bindsMemory() ? "node-bound" : "not node-bound");
    return d;
  }

  public CacheCounters counters() {
    return counters;
  }

  public AffinityRouter router() {
    return router;
  }

  public PartitionHash partitionHash() {
    return hash;
  }

  public CacheParameters parameters() {
    return params;
  }

  @Override
  public int blockSize() {
    return backing.blockSize();
  }

  @Override
  public long blockCount() {
    return backing.blockCount();
  }

  @Override
  public int physicalBlockSize() {
    return backing.physicalBlockSize();
  }

  @Override
  public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
    if (!admit(offset, length, done)) {
      return;
    }
    CacheRequest r = readRequest(offset, length);
    r.buf = dst;
    r.base = dst.writerIndex();
    r.done = done;
    dispatch(r);
  }

  /** Served in place: nothing to copy, so never forwarded to another node. */
  @Override
  public boolean readShared(long offset, int length, ByteBufAllocator alloc, SharedRead done) {
    IoStatus refused = refusal(offset, length);
    if (refused != null) {
      done.sharedReadDone(refused, null);
      return true;
    }
    CacheRequest r = readRequest(offset, length);
    r.shared = done;
    r.alloc = alloc;
    r.servingNode = Math.max(0, NodeThread.currentNode());
    r.start();
    return true;
  }

  private CacheRequest readRequest(long offset, int length) {
    CacheRequest r = take();
    r.op = CacheRequest.READ;
    r.offset = offset;
    r.length = length;
    r.fua = false;
    return r;
  }

  /** Every node's cache memory, e.g. for a transport to register with its device once at start. */
  public List<ByteBuffer> memory() {
    List<ByteBuffer> all = new ArrayList<>();
    for (CacheRegion region : regions) {
      all.addAll(List.of(region.memory));
    }
    return all;
  }

  @Override
  public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
    if (!admit(offset, src.readableBytes(), done)) {
      return;
    }
    CacheRequest r = take();
    r.op = CacheRequest.WRITE;
    r.offset = offset;
    r.length = src.readableBytes();
    r.buf = src;
    r.base = src.readerIndex();
    r.fua = fua;
    r.done = done;
    dispatch(r);
  }

  @Override
  public void unmap(long offset, long length, IoCompletion done) {
    if (!admit(offset, length, done)) {
      return;
    }
    CacheRequest r = take();
    r.op = CacheRequest.UNMAP;
    r.offset = offset;
    r.length = length;
    r.done = done;
    r.servingNode = Math.max(0, NodeThread.currentNode());
    r.start();
  }

  @Override
  public void flush(IoCompletion done) {
    if (!writeBack) {
      backing.flush(done);
      return;
    }
    boolean kick;
    synchronized (serial) {
      flushWaiters.add(done);
      kick = !exclusiveRunning;
      exclusiveRunning = true;
    }
    if (kick) {
      runNextExclusive();
    }
  }

  /** Mapping state comes from the backing device (in write-back, as of the last flush). */
  @Override
  public boolean isMapped(long offset) {
    // A block written under write-back may still be only here: dirty in the cache means mapped.
    return dirtyInCache(offset) || backing.isMapped(offset);
  }

  @Override
  public long nextMappingChange(long offset) {
    if (dirtyInCache(offset)) {
      long blockEnd = (offset / blockSize + 1) * blockSize;
      return Math.min(size, blockEnd); // mapped at least to the end of this dirty block
    }
    long backingChange = backing.nextMappingChange(offset);
    if (writeBack && !backing.isMapped(offset)) {
      // An unmapped run of the backing file ends early where a dirty cache block begins.
      long first = offset / blockSize + 1;
      for (long b = first; b * blockSize < backingChange; b++) {
        if (dirtyInCache(b * blockSize)) {
          return b * blockSize;
        }
        if (b - first >= MAPPING_SCAN_BLOCKS) {
          return (b + 1) * blockSize; // a shorter extent is still correct; the initiator asks again from there
        }
      }
    }
    return backingChange;
  }

  /** Cache blocks GET LBA STATUS looks at per call for dirty blocks inside an unmapped run. */
  private static final int MAPPING_SCAN_BLOCKS = 4096;

  private boolean dirtyInCache(long offset) {
    if (!writeBack) {
      return false;
    }
    long block = offset / blockSize;
    CachePartition p = partitionOf(block);
    p.lock.lock();
    try {
      int s = p.lookup(block);
      return s >= 0 && p.dirty[s];
    } finally {
      p.lock.unlock();
    }
  }

  /** Flushes dirty blocks (write-back), waits for requests in flight, closes the backing device, frees the regions. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (writeBack) {
      Latch l = new Latch();
      flush(l);
      if (!l.await(30)) {
        LOG.warn("cache close: the final flush did not finish in 30 s");
      } else if (l.status != IoStatus.OK) {
        LOG.warn("cache close: the final flush failed: {}", l.status);
      }
    }
    closed = true;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (inflight.get() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
      Thread.yield();
    }
    backing.close();
    // A buffer served in place may still be queued in a transport: its memory must outlive it.
    while (pinnedSlots() > 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(1_000_000);
    }
    if (inflight.get() == 0 && pinnedSlots() == 0) {
      for (CacheRegion region : regions) {
        region.free(memory);
      }
    } else {
      LOG.warn("cache close: {} requests still in flight, {} blocks pinned; cache memory is not freed",
          inflight.get(), pinnedSlots());
    }
  }

  // ---- request admission and routing ----

  private boolean admit(long offset, long length, IoCompletion done) {
    IoStatus refused = refusal(offset, length);
    if (refused != null) {
      done.ioComplete(refused);
      return false;
    }
    return true;
  }

  /** Why a request cannot start (closed, outside the device), or null. */
  private IoStatus refusal(long offset, long length) {
    if (closed) {
      return IoStatus.UNAVAILABLE;
    }
    if (offset < 0 || length < 0 || offset > size || length > size - offset) {
      return IoStatus.OUT_OF_RANGE;
    }
    return null;
  }

  private void dispatch(CacheRequest r) {
    int here = NodeThread.currentNode();
    int arrival = Math.max(0, here);
    r.servingNode = arrival;
    if (nodeExecutors != null && router.routes((int) r.length)) {
      int node = router.route(r.offset, r.length, arrival);
      if (node != arrival) {
        r.routed = true;
        r.servingNode = node;
        counters.forwards[node].increment();
        try {
          nodeExecutors[node].execute(r);
          return;
        } catch (RejectedExecutionException e) {
          r.servingNode = arrival; // served here rather than refused
        }
      }
    }
    r.start();
  }

  /** A read's last block arrived on a thread of another node: copy on the serving node's workers. */
  boolean forwardCopy(CacheRequest r) {
    if (nodeExecutors == null) {
      return false;
    }
    try {
      nodeExecutors[r.servingNode].execute(r);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  // ---- package API for requests ----

  BlockDevice backing() {
    return backing;
  }

  boolean writeBack() {
    return writeBack;
  }

  int cacheBlockSize() {
    return blockSize;
  }

  CacheCounters counters0() {
    return counters;
  }

  CachePartition partitionOf(long block) {
    return partitions[hash.partition(block)];
  }

  /** Bytes of this cache block inside the device (the last one may be short). */
  int blockBytes(long block) {
    return (int) Math.min(blockSize, size - block * blockSize);
  }

  void issueFill(CachePartition p, int s, long block) {
    SlotIo io = p.io[s];
    io.writingBack = false;
    ByteBuf view = p.views[s];
    view.clear();
    backing.read(block * blockSize, blockBytes(block), view, io);
  }

  void fillDone(SlotIo io, IoStatus st) {
    CachePartition p = io.partition;
    int s = io.slot;
    int n;
    p.lock.lock();
    try {
      p.state[s] = CachePartition.VALID;
      if (st != IoStatus.OK) {
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
    CacheRequest r;
    p.lock.lock();
    try {
      r = p.takeParked();
      p.takeWakeDue();
    } finally {
      p.lock.unlock();
    }
    resumeAll(r);
  }

  /**
   * Resumes parked requests one after another, never one inside another: a resumed write may park again and run
   * a write-back batch inline, which frees slots and resumes more; nested, a long chain of parked writes
   * overflowed the stack. Requests to resume while this thread is already resuming join its queue.
   */
  void resumeAll(CacheRequest list) {
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
      CacheRequest r;
      while ((r = q.poll()) != null) {
        r.resume();
      }
    } finally {
      q.draining = false;
    }
  }

  private static final ThreadLocal<ResumeQueue> RESUMING = ThreadLocal.withInitial(ResumeQueue::new);

  /** This thread's requests waiting to be resumed, linked through {@code nextParked}. */
  private static final class ResumeQueue {
    private CacheRequest head;
    private CacheRequest tail;
    private boolean draining;

    void append(CacheRequest list) {
      if (head == null) {
        head = list;
      } else {
        tail.nextParked = list;
      }
      CacheRequest last = list;
      while (last.nextParked != null) {
        last = last.nextParked;
      }
      tail = last;
    }

    CacheRequest poll() {
      CacheRequest r = head;
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

  /**
   * After a write-through write or an unmap reached the backing device: cached copies of the range
   * are dropped (a block being filled is unmapped, so its possibly older data serves only the
   * requests already waiting on it). Dirty blocks (write-back) are never dropped: an unmap zeroes
   * its bytes in them, so the next write-back writes zeros.
   */
  void invalidate(long offset, long length, boolean unmap) {
    if (length == 0) {
      return;
    }
    long first = offset / blockSize;
    long last = (offset + length - 1) / blockSize;
    for (long block = first; block <= last; block++) {
      CachePartition p = partitionOf(block);
      p.lock.lock();
      try {
        int s = p.lookup(block);
        if (s < 0) {
          continue;
        }
        if (p.dirty[s]) {
          if (unmap) {
            long blockStart = block * blockSize;
            long start = Math.max(offset, blockStart);
            long end = Math.min(offset + length, blockStart + blockSize);
            p.views[s].setZero((int) (start - blockStart), (int) (end - start));
            p.version[s]++;
          }
        } else {
          p.unmapSlot(s);
        }
      } finally {
        unlockAndWake(p);
      }
    }
  }

  // ---- write-back serializer ----

  void enqueueExclusive(CacheRequest unmap) {
    boolean kick;
    synchronized (serial) {
      unmapQueue.add(unmap);
      kick = !exclusiveRunning;
      exclusiveRunning = true;
    }
    if (kick) {
      runNextExclusive();
    }
  }

  /** Slot pressure in write-back: start a batch if none is running (or run one after the current job). */
  void requestWriteback() {
    boolean kick;
    synchronized (serial) {
      batchWanted = true;
      kick = !exclusiveRunning;
      exclusiveRunning = true;
    }
    if (kick) {
      runNextExclusive();
    }
  }

  void exclusiveDone() {
    runNextExclusive();
  }

  /**
   * Runs the next exclusive step (an unmap or a write-back batch). A step that completes inline (a synchronous
   * backing store) asks for the next one from inside itself: that request is left to the loop already running on
   * this thread, so a long run of steps does not nest one stack frame chain per step.
   */
  private void runNextExclusive() {
    ExclusiveDriver d = exclusiveDriver.get();
    if (d.driving) {
      d.again = true;
      return;
    }
    d.driving = true;
    try {
      do {
        d.again = false;
        runOneExclusive();
      } while (d.again);
    } finally {
      d.driving = false;
    }
  }

  /** Whether this thread is inside {@link #runNextExclusive}, and whether a step asked for another meanwhile. */
  private static final class ExclusiveDriver {
    boolean driving;
    boolean again;
  }

  private final ThreadLocal<ExclusiveDriver> exclusiveDriver = ThreadLocal.withInitial(ExclusiveDriver::new);

  private void runOneExclusive() {
    CacheRequest unmap;
    synchronized (serial) {
      unmap = unmapQueue.poll();
      if (unmap == null) {
        if (flushWaiters.isEmpty() && !batchWanted) {
          exclusiveRunning = false;
          return;
        }
        batchWaiters.addAll(flushWaiters);
        flushWaiters.clear();
        batchWanted = false;
      }
    }
    if (unmap != null) {
      unmap.runUnmap();
    } else {
      startBatch();
    }
  }

  private void startBatch() {
    int n = 0;
    for (CachePartition p : partitions) {
      p.lock.lock();
      try {
        for (int s = 0; s < p.slots; s++) {
          if (p.mapped[s] && p.dirty[s] && !p.writeback[s] && p.state[s] == CachePartition.VALID) {
            p.writeback[s] = true;
            p.pin(s);
            batch[n++] = p.io[s];
          }
        }
      } finally {
        p.lock.unlock();
      }
    }
    batchStatus = IoStatus.OK;
    batchCleaned = n > 0;
    batchPending.set(n + 1);
    for (int i = 0; i < n; i++) {
      SlotIo io = batch[i];
      batch[i] = null;
      CachePartition p = io.partition;
      long block = p.blockOf[io.slot];
      int bytes = blockBytes(block);
      io.writingBack = true;
      ByteBuf view = p.views[io.slot];
      view.setIndex(0, bytes);
      backing.write(block * blockSize, view, false, io);
    }
    batchArrive();
  }

  void writebackDone(SlotIo io, IoStatus st) {
    CachePartition p = io.partition;
    int s = io.slot;
    p.lock.lock();
    try {
      p.writeback[s] = false;
      if (st == IoStatus.OK) {
        p.dirty[s] = false;
      } else if (batchStatus == IoStatus.OK) {
        batchStatus = st;
      }
      p.unpin(s);
    } finally {
      unlockAndWake(p);
    }
    batchArrive();
  }

  private void batchArrive() {
    if (batchPending.decrementAndGet() != 0) {
      return;
    }
    boolean waiters;
    synchronized (serial) {
      waiters = !batchWaiters.isEmpty();
    }
    if (waiters) {
      backing.flush(batchFlush);
    } else {
      batchFinished();
    }
  }

  private void batchFinished() {
    if (batchCleaned) {
      // slots freed by the write-backs already woke their partitions; this catches parks that raced the batch
      for (CachePartition p : partitions) {
        if (p.hasParked()) {
          wake(p);
        }
      }
    }
    runNextExclusive();
  }

  /** Completes the flush requests of a batch once the backing device has made it durable. */
  private final class BatchFlush implements IoCompletion {
    @Override
    public void ioComplete(IoStatus st) {
      IoStatus result = batchStatus != IoStatus.OK ? batchStatus : st;
      IoCompletion[] done;
      synchronized (serial) {
        done = batchWaiters.toArray(new IoCompletion[0]);
        batchWaiters.clear();
      }
      for (IoCompletion d : done) {
        d.ioComplete(result);
      }
      batchFinished();
    }
  }

  /** Cache blocks pinned right now: by reads in flight and by buffers served in place not yet released. */
  public int pinnedSlots() {
    int n = 0;
    for (CachePartition p : partitions) {
      p.lock.lock();
      try {
        for (int s = 0; s < p.slots; s++) {
          n += p.pins[s] > 0 ? 1 : 0;
        }
      } finally {
        p.lock.unlock();
      }
    }
    return n;
  }

  /** Slot states per partition and the serializer's state, for diagnosing a stuck request. */
  String debugState() {
    StringBuilder sb = new StringBuilder();
    synchronized (serial) {
      sb.append("exclusiveRunning=").append(exclusiveRunning).append(" batchWanted=").append(batchWanted)
          .append(" flushWaiters=").append(flushWaiters.size()).append(" batchWaiters=").append(batchWaiters.size())
          .append(" batchPending=").append(batchPending.get()).append(" inflight=").append(inflight.get()).append('\n');
    }
    for (int i = 0; i < partitions.length; i++) {
      CachePartition p = partitions[i];
      p.lock.lock();
      try {
        sb.append("partition ").append(i).append(" free=").append(p.freeCount()).append(" lru=")
            .append(p.lruOrder().length).append(" parked=").append(p.hasParked()).append(" slots:");
        for (int s = 0; s < p.slots; s++) {
          sb.append(' ').append(p.state[s]).append(p.mapped[s] ? "m" : "-").append(p.dirty[s] ? "d" : "")
              .append(p.writeback[s] ? "w" : "").append('/').append(p.pins[s]);
        }
        sb.append('\n');
      } finally {
        p.lock.unlock();
      }
    }
    return sb.toString();
  }

  // ---- request pool ----

  private CacheRequest take() {
    inflight.incrementAndGet();
    CacheRequest r;
    synchronized (pool) {
      r = pooled > 0 ? pool[--pooled] : null;
    }
    if (r == null) {
      r = new CacheRequest(this);
    }
    r.reset();
    return r;
  }

  void recycle(CacheRequest r) {
    r.buf = null;
    r.done = null;
    synchronized (pool) {
      if (pooled < POOL_LIMIT) {
        pool[pooled++] = r;
      }
    }
    inflight.decrementAndGet();
  }

  /** Blocks until a completion arrives (close only). */
  private static final class Latch implements IoCompletion {
    private final CountDownLatch latch = new CountDownLatch(1);
    volatile IoStatus status;

    @Override
    public void ioComplete(IoStatus st) {
      status = st;
      latch.countDown();
    }

    boolean await(int seconds) {
      try {
        return latch.await(seconds, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }
}
