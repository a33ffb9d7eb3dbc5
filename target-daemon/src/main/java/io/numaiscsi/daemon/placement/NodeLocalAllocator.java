package io.numaiscsi.daemon.placement;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.numaiscsi.numa.NodeThread;

/**
 * Network and data buffers from the calling thread's own node: one pooled allocator per node, used only by the
 * threads pinned there, so each pool's memory is first touched (and placed by the kernel) on its node. Threads bound
 * to no node use node 0's pool.
 */
public final class NodeLocalAllocator extends AbstractByteBufAllocator {
    private final PooledByteBufAllocator[] byNode;

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
