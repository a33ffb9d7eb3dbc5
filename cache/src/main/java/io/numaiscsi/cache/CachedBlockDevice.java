package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.MappingResources;
import io.numaiscsi.blockdev.SharedRead;
import io.numaiscsi.blockdev.WritePolicy;
import io.numaiscsi.numa.DataTouches;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.NumaTopology;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitioned per-node block cache in front of a LUN's backing device (which does O_DIRECT): the
 * {@link BlockDevice} the SCSI layer sees. It refuses requests to a closed device or outside it and hands the rest to
 * its read side ({@link CacheReads}: hits copied once or served in place, single-flight fills, read-through by
 * admission) and its write side ({@link CacheWrites}: write-through, or write-back with copy-on-write dirty blocks
 * written back in serialized batches on flush, FUA, slot pressure, close and in the background by the
 * {@link WriteBackFlusher}); mapping queries go to {@link CacheMapping}. Requests of at least the route threshold are
 * forwarded once to the node holding most of their bytes ({@link RequestDispatch}).
 */
public final class CachedBlockDevice implements BlockDevice {
    private static final Logger LOG = LoggerFactory.getLogger(CachedBlockDevice.class);

    private final BlockDevice backing;
    private final CacheParameters params;
    private final int blockSize;
    private final AffinityRouter router;
    private final CacheSpace space;
    private final CacheCounters counters;
    /** Non-null when the cache allocated its pools itself (and frees them when it closes). */
    private final NodeMemory ownPoolsMemory;

    private final NodeBlockPool[] pools;
    /** Null under write-through. */
    private final WriteBackScheduler writeBacks;
    /** Null under write-through. */
    private final DirtyWatch dirtyWatch;

    private final WriteBackFlusher flusher;
    private final AtomicInteger inflight = new AtomicInteger();
    private final CacheReads reads;
    private final CacheWrites writes;
    private final CacheMapping mapping;
    private volatile boolean closed;

    private CachedBlockDevice(
            BlockDevice backing,
            CacheParameters params,
            NumaTopology topology,
            NodeBlockPool[] pools,
            NodeMemory ownPoolsMemory,
            Executor[] nodeExecutors,
            int[] nodeIds,
            DataTouches touches,
            WriteBackFlusher flusher) {
        Objects.requireNonNull(backing, "backing");
        Objects.requireNonNull(flusher, "flusher");
        if (backing.blockSize() > params.blockSize()) {
            throw new IllegalArgumentException(
                    "cache block " + params.blockSize() + " smaller than the logical block " + backing.blockSize());
        }
        NodeBlockPool.requireBlockSize(pools, params.blockSize());
        this.backing = backing;
        this.params = params;
        this.blockSize = params.blockSize();
        long size = backing.blockCount() * backing.blockSize();
        this.pools = pools;
        this.ownPoolsMemory = ownPoolsMemory;
        int nodes = topology.nodeCount();
        NodeExecutors executors = new NodeExecutors(nodeExecutors, nodes);
        this.counters = new CacheCounters(nodes);
        SlotCompletions slotCompletions = new SlotCompletions();
        this.space =
                new CacheSpace(size, backing.blockSize(), params, nodeIds, pools, counters, slotCompletions, touches);
        this.router = new AffinityRouter(space.hash, blockSize, params.routeThreshold(), space.nodeIds);
        FillCoordinator fills = new FillCoordinator(backing, space);
        this.writeBacks =
                params.writePolicy() == WritePolicy.WRITE_BACK ? new WriteBackScheduler(backing, space, fills) : null;
        slotCompletions.bind(fills, writeBacks);
        this.flusher = flusher;
        this.dirtyWatch = writeBacks != null
                ? new DirtyWatch(space, writeBacks, fills, params.dirtyExpire().toNanos())
                : null;
        RequestDispatch dispatch = new RequestDispatch(router, executors, counters);
        this.reads = new CacheReads(backing, space, fills, counters, executors, dispatch, inflight);
        this.writes = new CacheWrites(backing, space, fills, writeBacks, dispatch, inflight);
        this.mapping = new CacheMapping(backing, space, writeBacks);
    }

    /**
     * Wraps {@code backing} (which the cache then owns and closes). Regions are allocated now, one per
     * node of {@code topology}, through {@code memory}. {@code nodeExecutors[n]} runs requests routed
     * to node n (its threads should be {@link NodeThread}s pinned to n); null disables forwarding.
     */
    public static CachedBlockDevice create(
            BlockDevice backing,
            CacheParameters params,
            NumaTopology topology,
            NodeMemory memory,
            Executor[] nodeExecutors) {
        return create(
                backing,
                params,
                topology,
                memory,
                nodeExecutors,
                AffinityRouter.allNodes(topology.nodeCount()),
                DataTouches.singleNode(),
                WriteBackFlusher.shared());
    }

    /**
     * As above, with the blocks only on the nodes {@code nodeIds} (one: the LUN's home node, where its event thread
     * runs; every node: blocks spread by address, large requests routed), the copies recorded in {@code touches}, and,
     * under write-back, the cache registered with {@code flusher} until closed.
     * The cache allocates {@code params.sizePerNode()} on each of those nodes for itself and frees it when it closes.
     */
    public static CachedBlockDevice create(
            BlockDevice backing,
            CacheParameters params,
            NumaTopology topology,
            NodeMemory memory,
            Executor[] nodeExecutors,
            int[] nodeIds,
            DataTouches touches,
            WriteBackFlusher flusher) {
        NodeBlockPool[] pools = new NodeBlockPool[nodeIds.length];
        for (int n = 0; n < nodeIds.length; n++) {
            pools[n] = NodeBlockPool.allocate(nodeIds[n], params.sizePerNode(), params.blockSize(), memory);
        }
        return started(new CachedBlockDevice(
                backing, params, topology, pools, memory, nodeExecutors, nodeIds, touches, flusher));
    }

    /**
     * A cache whose blocks come from {@code pools[n]}, the shared pool of node {@code nodeIds[n]} (the daemon's, one
     * per node, shared by every LUN homed there); {@code params.sizePerNode()} is the pools' size.
     */
    public static CachedBlockDevice createInPools(
            BlockDevice backing,
            CacheParameters params,
            NumaTopology topology,
            NodeBlockPool[] pools,
            Executor[] nodeExecutors,
            int[] nodeIds,
            DataTouches touches,
            WriteBackFlusher flusher) {
        return started(new CachedBlockDevice(
                backing, params, topology, pools, null, nodeExecutors, nodeIds, touches, flusher));
    }

    /** Registers a new cache's dirty watch with its flusher (write-back) and says what the cache is. */
    private static CachedBlockDevice started(CachedBlockDevice d) {
        if (d.dirtyWatch != null) {
            d.space.dirty.onSoftCrossing(d.flusher::kick);
            d.flusher.register(d.dirtyWatch);
        }
        LOG.info(
                "cache: node(s) {}, {}, {} partitions/node of up to {} blocks of {} bytes, {}",
                Arrays.toString(d.space.nodeIds),
                d.ownPoolsMemory != null ? "own memory" : "shared pool",
                d.params.partitionsPerNode(),
                d.space.partitions[0].slots(),
                d.params.blockSize(),
                d.params.writePolicy());
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
            throw new UnsupportedOperationException(
                    "a cached LUN grows only from a size that is a multiple of the cache " + "block (" + blockSize
                            + " bytes); this one is " + size + " bytes");
        }
        backing.resize(newBlockCount);
        space.size = backing.blockCount() * backing.blockSize();
    }

    @Override
    public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
        if (admit(offset, length, done)) {
            reads.read(offset, length, dst, done);
        }
    }

    /** Served in place: nothing to copy, so never forwarded to another node. */
    @Override
    public boolean readShared(long offset, int length, ByteBufAllocator alloc, SharedRead done) {
        IoStatus refused = refusal(offset, length);
        if (refused != null) {
            done.sharedReadDone(refused, null);
        } else {
            reads.readShared(offset, length, alloc, done);
        }
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

    /** PRE-FETCH: the read of {@code block} that follows fills it ({@link CacheReads#wantedSoon}). */
    void wantedSoon(long block) {
        reads.wantedSoon(block);
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
        if (admit(offset, src.readableBytes(), done)) {
            writes.write(offset, src, fua, done);
        }
    }

    @Override
    public void unmap(long offset, long length, IoCompletion done) {
        if (admit(offset, length, done)) {
            writes.unmap(offset, length, done);
        }
    }

    @Override
    public void flush(IoCompletion done) {
        writes.flush(done);
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

    /** Mapping state comes from the backing device; under write-back a dirty cache block counts as mapped. */
    @Override
    public boolean isMapped(long offset) {
        return mapping.isMapped(offset);
    }

    @Override
    public long nextMappingChange(long offset) {
        return mapping.nextMappingChange(offset);
    }

    /** Flushes dirty blocks (write-back), waits for requests in flight, closes the backing device, gives the memory back. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (writeBacks != null) {
            flusher.unregister(dirtyWatch);
            FinalFlush.run(this::flush);
        }
        closed = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (inflight.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
        backing.close();
        // A buffer served in place may still be queued in a transport: its memory must outlive it.
        while (pinnedSlots() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        if (inflight.get() == 0 && pinnedSlots() == 0) {
            space.leavePools();
            if (ownPoolsMemory != null) {
                NodeBlockPool.freeAll(pools, ownPoolsMemory);
            }
        } else {
            LOG.warn(
                    "cache close: {} requests still in flight, {} blocks pinned; cache memory is not given back",
                    inflight.get(),
                    pinnedSlots());
        }
    }

    // ---- admission: where a new admission policy goes (routing: RequestDispatch) ----

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
}
