package io.numaiscsi.daemon.placement;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.numaiscsi.numa.FreshLargeBlocks;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.NumaNode;
import io.numaiscsi.numa.NumaTopology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Network and data buffers from the calling thread's own node: one pooled allocator per node, used only by the
 * threads pinned there, so each pool's memory is first touched (and placed by the kernel) on its node. Threads bound
 * to no node use node 0's pool.
 */
public final class NodeLocalAllocator extends AbstractByteBufAllocator {
    private static final Logger LOG = LoggerFactory.getLogger(NodeLocalAllocator.class);
    private static final String THREAD_CACHE_PROPERTY = "io.netty.allocator.maxCachedBufferCapacity";
    /**
     * Buffers up to this size a thread frees stay in its own cache for its next allocation. Netty's default (32 KiB)
     * sends every larger Data-In buffer back to the arena, and a read stream of 512 KiB commands then drains a 4 MiB
     * chunk empty, which Netty frees, and the next command maps and zeroes a new one: 5% of a LUN thread's time in a
     * 512 KiB sequential read benchmark once earlier 4K cells had fragmented the arena.
     */
    static final int THREAD_CACHED_MAX = 512 << 10;
    /** Cached buffers per size class and thread; a LUN thread's worst case is a few MiB per size class it reads. */
    private static final int NORMAL_CACHE_SIZE = 32;

    private static final int SMALL_CACHE_SIZE = 256;
    private static final int PAGE_SIZE = 8192;
    private static final int MAX_ORDER = 9; // 4 MiB chunks
    private static final int DIRECT_IO_ALIGNMENT = 4096;

    private final PooledByteBufAllocator[] byNode;

    /**
     * Lets threads keep Data-In sized buffers in their caches: must run before Netty's pooled allocator is first
     * used (its defaults are read once), so the daemon's main does it first. An explicit -D setting wins.
     */
    public static void configureThreadCaches() {
        if (System.getProperty(THREAD_CACHE_PROPERTY) == null) {
            System.setProperty(THREAD_CACHE_PROPERTY, Integer.toString(THREAD_CACHED_MAX));
        }
    }

    /**
     * One pool per node, with as many arenas as the node has CPUs. With more than one node, large mallocs are made
     * fresh mappings ({@link FreshLargeBlocks}), so each pool's chunks are placed by its own node's threads.
     */
    public static NodeLocalAllocator forNodes(NumaTopology topology) {
        if (topology.nodeCount() > 1) {
            FreshLargeBlocks.fixThreshold();
        }
        if (Integer.getInteger(THREAD_CACHE_PROPERTY, 0) < THREAD_CACHED_MAX) {
            LOG.warn(
                    "{} is {} (not set by the daemon's main): threads will not keep buffers of large reads in their "
                            + "caches",
                    THREAD_CACHE_PROPERTY,
                    System.getProperty(THREAD_CACHE_PROPERTY, "Netty's default"));
        }
        PooledByteBufAllocator[] pools = new PooledByteBufAllocator[topology.nodeCount()];
        for (NumaNode n : topology.nodes()) {
            pools[n.index()] = new PooledByteBufAllocator(
                    true,
                    0,
                    Math.max(1, n.cpuCount()),
                    PAGE_SIZE,
                    MAX_ORDER,
                    SMALL_CACHE_SIZE,
                    NORMAL_CACHE_SIZE,
                    true,
                    DIRECT_IO_ALIGNMENT);
        }
        return new NodeLocalAllocator(pools);
    }

    public NodeLocalAllocator(PooledByteBufAllocator[] byNode) {
        super(true);
        this.byNode = byNode.clone();
    }

    private PooledByteBufAllocator local() {
        int n = NodeThread.currentNode();
        return byNode[n < 0 || n >= byNode.length ? 0 : n];
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return local().heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return local().directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    /** Memory held by all the nodes' pools. */
    public ByteBufAllocatorMetric metric() {
        return new ByteBufAllocatorMetric() {
            @Override
            public long usedHeapMemory() {
                long sum = 0;
                for (PooledByteBufAllocator a : byNode) {
                    sum += a.metric().usedHeapMemory();
                }
                return sum;
            }

            @Override
            public long usedDirectMemory() {
                long sum = 0;
                for (PooledByteBufAllocator a : byNode) {
                    sum += a.metric().usedDirectMemory();
                }
                return sum;
            }
        };
    }
}
