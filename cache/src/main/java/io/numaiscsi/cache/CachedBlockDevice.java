package io.numaiscsi.cache;

import io.numaiscsi.config.WritePolicy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.scsi.BlockDevice;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.scsi.IoCompletion;
import io.numaiscsi.scsi.IoStatus;
import io.numaiscsi.scsi.MappingResources;
import io.numaiscsi.scsi.SharedRead;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
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
 * in batches on flush, FUA, slot pressure, close and in the background (the {@link WriteBackFlusher}: above the dirty
 * ratio or past the dirty expiry; a write that would pass the hard dirty limit waits for a batch). Batches and write-back unmaps are serialized,
 * so two versions of one block are never in flight to the backing device at once.
 */
public final class CachedBlockDevice implements BlockDevice {
  private static final Logger LOG = LoggerFactory.getLogger(CachedBlockDevice.class);
  /** Cache blocks GET LBA STATUS looks at per call for dirty blocks inside an unmapped run. */
  private static final int MAPPING_SCAN_BLOCKS = 4096;

  private final BlockDevice backing;
  private final CacheParameters params;
  private final int blockSize;
  private final AffinityRouter router;
  private final CacheSpace space;
  private final CacheCounters counters;
  private final NodeExecutors nodeExecutors;
  /** Non-null when the cache allocated its pools itself (and frees them when it closes). */
  private final NodeMemory ownPoolsMemory;
  private final NodeBlockPool[] pools;
  private final FillCoordinator fills;
  /** Null under write-through. */
  private final WriteBackScheduler writeBacks;
  /** Null under write-through. */
  private final DirtyWatch dirtyWatch;
  private final WriteBackFlusher flusher;
  private final AtomicInteger inflight = new AtomicInteger();
  private final ReadAdmission admission;
  private final RequestPool<ReadRequest> reads;
  private final RequestPool<WriteBackWrite> writeBackWrites;
  private final RequestPool<BackingRequest> backingRequests;
  private volatile boolean closed;

  private CachedBlockDevice(BlockDevice backing, CacheParameters params, NumaTopology topology, NodeBlockPool[] pools,
                            NodeMemory ownPoolsMemory, Executor[] nodeExecutors, int[] nodeIds, DataTouches touches,
                            WriteBackFlusher flusher) {
    this.backing = backing;
    this.params = params;
    this.blockSize = params.blockSize();
    long size = backing.blockCount() * backing.blockSize();
    this.pools = pools;
    this.ownPoolsMemory = ownPoolsMemory;
    int nodes = topology.nodeCount();
    this.nodeExecutors = new NodeExecutors(nodeExecutors, nodes);
    this.counters = new CacheCounters(nodes);
    SlotCompletions slotCompletions = new SlotCompletions();
    this.space = new CacheSpace(size, backing.blockSize(), params, nodeIds, pools, counters, slotCompletions,
        touches);
    this.router = new AffinityRouter(space.hash, blockSize, params.routeThreshold(), space.nodeIds);
    this.fills = new FillCoordinator(backing, space);
    this.writeBacks = params.writePolicy() == WritePolicy.WRITE_BACK
        ? new WriteBackScheduler(backing, space, fills) : null;
    slotCompletions.bind(fills, writeBacks);
    this.flusher = flusher;
    this.dirtyWatch = writeBacks != null
        ? new DirtyWatch(space, writeBacks, fills, params.dirtyExpire().toNanos()) : null;
    NodeExecutors executors = this.nodeExecutors;
    this.admission = new ReadAdmission(GhostTable.forSlots(space.totalSlots()), new StreamTable());
    ReadAdmission admission = this.admission;
    this.reads = new RequestPool<>(inflight,
        p -> new ReadRequest(p, backing, space, fills, counters, executors, admission));
    this.writeBackWrites = new RequestPool<>(inflight, p -> new WriteBackWrite(p, space, fills, writeBacks));
    this.backingRequests = new RequestPool<>(inflight, p -> new BackingRequest(p, backing, fills, writeBacks));
  }

  /**
   * Wraps {@code backing} (which the cache then owns and closes). Regions are allocated now, one per
   * node of {@code topology}, through {@code memory}. {@code nodeExecutors[n]} runs requests routed
   * to node n (its threads should be {@link NodeThread}s pinned to n); null disables forwarding.
   */
  public static CachedBlockDevice create(BlockDevice backing, CacheParameters params, NumaTopology topology,
                                         NodeMemory memory, Executor[] nodeExecutors) {
    return create(backing, params, topology, memory, nodeExecutors, WriteBackFlusher.shared());
  }

  /** As above; under write-back the cache registers with {@code flusher} (rather than the shared one) until closed. */
  public static CachedBlockDevice create(BlockDevice backing, CacheParameters params, NumaTopology topology,
                                         NodeMemory memory, Executor[] nodeExecutors, WriteBackFlusher flusher) {
    return create(backing, params, topology, memory, nodeExecutors, AffinityRouter.allNodes(topology.nodeCount()),
        DataTouches.singleNode(), flusher);
  }

  /**
   * As above, with the blocks only on the nodes {@code nodeIds} (one: the LUN's home node, where its event thread
   * runs; every node: blocks spread by address, large requests routed) and the copies recorded in {@code touches}.
   * The cache allocates {@code params.sizePerNode()} on each of those nodes for itself and frees it when it closes.
   */
  public static CachedBlockDevice create(BlockDevice backing, CacheParameters params, NumaTopology topology,
                                         NodeMemory memory, Executor[] nodeExecutors, int[] nodeIds,
                                         DataTouches touches, WriteBackFlusher flusher) {
    NodeBlockPool[] pools = new NodeBlockPool[nodeIds.length];
    for (int n = 0; n < nodeIds.length; n++) {
      pools[n] = NodeBlockPool.allocate(nodeIds[n], params.sizePerNode(), params.blockSize(), memory);
    }
    return create(backing, params, topology, pools, memory, nodeExecutors, nodeIds, touches, flusher);
  }

  /**
   * A cache whose blocks come from {@code pools[n]}, the shared pool of node {@code nodeIds[n]} (the daemon's, one
   * per node, shared by every LUN homed there); {@code params.sizePerNode()} is the pools' size.
   */
  public static CachedBlockDevice createInPools(BlockDevice backing, CacheParameters params, NumaTopology topology,
                                                NodeBlockPool[] pools, Executor[] nodeExecutors, int[] nodeIds,
                                                DataTouches touches, WriteBackFlusher flusher) {
    return create(backing, params, topology, pools, null, nodeExecutors, nodeIds, touches, flusher);
  }

  private static CachedBlockDevice create(BlockDevice backing, CacheParameters params, NumaTopology topology,
                                          NodeBlockPool[] pools, NodeMemory ownPoolsMemory, Executor[] nodeExecutors,
                                          int[] nodeIds, DataTouches touches, WriteBackFlusher flusher) {
    Objects.requireNonNull(backing, "backing");
    Objects.requireNonNull(flusher, "flusher");
    if (backing.blockSize() > params.blockSize()) {
      throw new IllegalArgumentException("cache block " + params.blockSize() + " smaller than the logical block "
          + backing.blockSize());
    }
    for (NodeBlockPool pool : pools) {
      if (pool.blockSize() != params.blockSize()) {
        throw new IllegalArgumentException("pool blocks of " + pool.blockSize() + " for a cache of "
            + params.blockSize());
      }
    }
    CachedBlockDevice d = new CachedBlockDevice(backing, params, topology, pools, ownPoolsMemory, nodeExecutors,
        nodeIds, touches, flusher);
    if (d.dirtyWatch != null) {
      d.space.dirty.onSoftCrossing(flusher::kick);
      flusher.register(d.dirtyWatch);
    }
    LOG.info("cache: node(s) {}, {}, {} partitions/node of up to {} blocks of {} bytes, {}",
        java.util.Arrays.toString(nodeIds), ownPoolsMemory != null ? "own memory" : "shared pool",
        params.partitionsPerNode(), d.space.partitions[0].slots(), params.blockSize(), params.writePolicy());
    return d;
  }

  public CacheCounters counters() {
    return counters;
  }

  /** Bytes of the cache blocks holding data not yet on the backing device (write-back; 0 under write-through). */
  public long dirtyBytes() {
    return space.dirty.bytes();
  }

  /** Write-back batches started (by any cause: flush, FUA, slot pressure, the background flusher, close). */
  public long writebackBatches() {
    return space.dirty.batches();
  }

  /** Bytes written back to the backing device by those batches. */
  public long writebackBytes() {
    return space.dirty.writtenBackBytes();
  }

  /** The dirty bytes above which the background flusher starts a batch. */
  public long dirtySoftLimit() {
    return space.dirty.softLimit;
  }

  /** The dirty bytes a write waits at rather than pass. */
  public long dirtyHardLimit() {
    return space.dirty.hardLimit;
  }

  public AffinityRouter router() {
    return router;
  }

  public PartitionHash partitionHash() {
    return space.hash;
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

  /**
   * Grows the backing device, then admits requests up to its new end. Refused unless the device ends on a cache block
   * boundary now: a cache block across the old end may hold bytes past it (a short last block, a last granule filled
   * in part, a dirty copy wholly valid) that the cache would serve as data once they are inside the device. With the
   * old end on a boundary, no block the cache holds reaches past it, and blocks past it are new to the cache.
   */
  @Override
  public void resize(long newBlockCount) throws IOException {
    BlockDevice.requireGrowth(this, newBlockCount);
    long size = space.size;
    if (size % blockSize != 0) {
      throw new UnsupportedOperationException("a cached LUN grows only from a size that is a multiple of the cache "
          + "block (" + blockSize + " bytes); this one is " + size + " bytes");
    }
    backing.resize(newBlockCount);
    space.size = backing.blockCount() * backing.blockSize();
  }

  @Override
  public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
    if (!admit(offset, length, done)) {
      return;
    }
    boolean sequential = admission.sequential(offset, offset + length);
    int outcome = readHere(offset, length, sequential, dst);
    if (outcome == ReadDecision.COPIED) {
      done.ioComplete(IoStatus.OK);
      return;
    }
    if (outcome == ReadDecision.READ_THROUGH) {
      // Nothing of the cache's is involved: the backing device reads into the caller's buffer and completes to the
      // caller. (Not counted in flight: one still running at close fails as any read of a closed device does.)
      backing.read(offset, length, dst, done);
      return;
    }
    ReadRequest r = readRequest(offset, length, sequential);
    r.admitted = outcome == ReadDecision.ADMITTED;
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
    ReadRequest r = readRequest(offset, length, admission.sequential(offset, offset + length));
    r.shared = done;
    r.alloc = alloc;
    r.servingNode = Math.max(0, NodeThread.currentNode());
    r.start();
    return true;
  }

  /** Half the memory of the pools this cache takes blocks from: one PRE-FETCH never claims a node's whole cache. */
  @Override
  public long prefetchLimit() {
    long bytes = 0;
    for (NodeBlockPool pool : pools) {
      bytes += pool.bytes();
    }
    return bytes / 2;
  }

  @Override
  public void prefetch(long offset, long length, IoCompletion done) {
    if (admit(offset, length, done)) {
      new CachePrefetch(this, blockSize, offset, offset + length, done).run();
    }
  }

  /**
   * PRE-FETCH: every granule of {@code block} counts as read through just now, so the read that follows fills it
   * (the reuse rule admits it; no first-time or scan rule reads it through). No partition lock: the admission's
   * tables are racy on purpose, and the read that follows runs on this thread.
   */
  void wantedSoon(long block) {
    admission.wanted(block, 0, space.granules(block));
  }

  /** The largest hit copied under the partition lock: the lock never covers a bulk copy. */
  private static final int HIT_COPY_MAX = 64 * 1024;

  /**
   * A read within one block, decided by its partition before any cache request exists ({@link
   * CachePartition#readHere}): a hit of at most 64 KiB that the router would not forward is copied into {@code dst}
   * under the partition lock (no request, no pin, no second lock to unpin); a miss the admission gives no slot is read
   * through by the caller (most reads of a LUN larger than the cache: one lookup more than no cache). Anything else,
   * and a read over several blocks, needs a cache request.
   */
  private int readHere(long offset, int length, boolean sequential, ByteBuf dst) {
    long block = offset / blockSize;
    if (length == 0 || (offset + length - 1) / blockSize != block) {
      return ReadDecision.NEEDS_REQUEST;
    }
    boolean copyHere = length <= HIT_COPY_MAX
        && !(nodeExecutors.present() && router.routes(length, Math.max(0, NodeThread.currentNode())));
    int from = (int) (offset - block * blockSize);
    int at = dst.writerIndex();
    CachePartition p = space.partitionOf(block);
    int outcome = p.readHere(admission, block, from, from + length, space.blockBytes(block), sequential,
        copyHere ? dst : null);
    if (outcome == ReadDecision.COPIED) {
      space.touches.touched(DataTouches.Kind.COPY, p.node(), length);
      space.touches.touched(DataTouches.Kind.COPY, dst, at, length);
    }
    return outcome;
  }

  private ReadRequest readRequest(long offset, int length, boolean sequential) {
    ReadRequest r = reads.take();
    r.offset = offset;
    r.length = length;
    r.sequential = sequential;
    return r;
  }

  /** The memory of every pool this cache takes blocks from, e.g. for a transport to register with its device. */
  public List<ByteBuffer> memory() {
    List<ByteBuffer> all = new ArrayList<>();
    for (NodeBlockPool pool : pools) {
      all.addAll(pool.memory());
    }
    return all;
  }

  /** Bytes of cache memory this cache holds now, of every pool. */
  public long heldBytes() {
    return (long) space.heldBlocks() * blockSize;
  }

  @Override
  public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
    if (!admit(offset, src.readableBytes(), done)) {
      return;
    }
    int length = src.readableBytes();
    if (writeBacks != null) {
      WriteBackWrite r = writeBackWrites.take();
      r.offset = offset;
      r.length = length;
      r.buf = src;
      r.base = src.readerIndex();
      r.fua = fua;
      r.done = done;
      dispatch(r);
    } else {
      BackingRequest r = backingRequests.take();
      r.kind = BackingRequest.Kind.WRITE_THROUGH;
      r.offset = offset;
      r.length = length;
      r.buf = src;
      r.fua = fua;
      r.done = done;
      dispatch(r);
    }
  }

  @Override
  public void unmap(long offset, long length, IoCompletion done) {
    if (!admit(offset, length, done)) {
      return;
    }
    BackingRequest r = backingRequests.take();
    r.kind = BackingRequest.Kind.UNMAP;
    r.offset = offset;
    r.length = length;
    r.done = done;
    r.servingNode = Math.max(0, NodeThread.currentNode());
    r.start();
  }

  @Override
  public void flush(IoCompletion done) {
    if (writeBacks == null) {
      backing.flush(done);
    } else {
      writeBacks.flush(done);
    }
  }

  /** The backing device's: under write-back, blocks still dirty here are not counted until they are written back. */
  @Override
  public MappingResources mappingResources() {
    return backing.mappingResources();
  }

  @Override
  public boolean tracksAllocation() {
    return backing.tracksAllocation();
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
      return Math.min(space.size, blockEnd); // mapped at least to the end of this dirty block
    }
    long backingChange = backing.nextMappingChange(offset);
    if (writeBacks != null && !backing.isMapped(offset)) {
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

  private boolean dirtyInCache(long offset) {
    return writeBacks != null && writeBacks.isDirty(offset);
  }

  /** Flushes dirty blocks (write-back), waits for requests in flight, closes the backing device, gives the memory back. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (writeBacks != null) {
      flusher.unregister(dirtyWatch);
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
      space.leavePools();
      if (ownPoolsMemory != null) {
        for (NodeBlockPool pool : pools) {
          pool.free(ownPoolsMemory);
        }
      }
    } else {
      LOG.warn("cache close: {} requests still in flight, {} blocks pinned; cache memory is not given back",
          inflight.get(), pinnedSlots());
    }
  }

  // ---- admission and routing: where a new admission policy goes ----

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
    long size = space.size;
    if (!BlockDevice.inRange(offset, length, size)) {
      return IoStatus.OUT_OF_RANGE;
    }
    return null;
  }

  private void dispatch(RoutedRequest r) {
    int here = NodeThread.currentNode();
    int arrival = Math.max(0, here);
    r.servingNode = arrival;
    if (nodeExecutors.present() && router.routes((int) r.length, arrival)) {
      int node = router.route(r.offset, r.length, arrival);
      if (node != arrival) {
        r.routed = true;
        r.servingNode = node;
        counters.forwards[node].increment();
        if (nodeExecutors.execute(node, r)) {
          return;
        }
        r.servingNode = arrival; // served here rather than refused
      }
    }
    r.start();
  }

  // ---- diagnostics ----

  /** Cache blocks pinned right now: by reads in flight and by buffers served in place not yet released. */
  public int pinnedSlots() {
    return space.pinnedSlots();
  }

  /** Slot states per partition and the serializer's state, for diagnosing a stuck request. */
  String debugState() {
    StringBuilder sb = new StringBuilder();
    if (writeBacks != null) {
      writeBacks.describe(sb);
      sb.append(' ');
    }
    sb.append("inflight=").append(inflight.get()).append('\n');
    space.describe(sb);
    return sb.toString();
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
