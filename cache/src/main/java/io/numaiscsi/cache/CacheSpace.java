package io.numaiscsi.cache;

import io.numaiscsi.numa.DataTouches;

/** The regions and partitions of every node, and which partition and how many bytes a cache block has. */
final class CacheSpace {
    /** The unit of validity inside a cache block, unless the device's logical block is larger. */
    static final int GRANULE = 4096;

    final int blockSize;
    final int granule;
    /** Bytes of the device the cache is in front of; grows with it ({@link CachedBlockDevice#resize}). */
    volatile long size;

    final PartitionHash hash;
    /** What this cache holds of each hash node's pool. */
    final PoolShare[] shares;

    final CachePartition[] partitions;
    final DirtyAccount dirty;

    /** The real node of each of the hash's nodes: one (the LUN's home) or every node of the machine. */
    final int[] nodeIds;
    /** Where the cache's own copies are recorded (the LUN's). */
    final DataTouches touches;

    /**
     * Partitions over {@code pools[n]}, the pool of node {@code nodeIds[n]}: each may grow to its share of the whole
     * pool ({@code pool blocks / partitions per node}), as far as the other caches on the pool leave it room.
     */
    CacheSpace(
            long size,
            int logicalBlock,
            CacheParameters params,
            int[] nodeIds,
            NodeBlockPool[] pools,
            CacheCounters counters,
            SlotIo.Sink slotSink,
            DataTouches touches) {
        this.touches = touches;
        this.blockSize = params.blockSize();
        this.granule = Math.max(GRANULE, logicalBlock);
        this.size = size;
        this.nodeIds = nodeIds.clone();
        int nodes = nodeIds.length;
        this.hash = new PartitionHash(nodes, params.partitionsPerNode(), params.neighbours());
        this.shares = new PoolShare[nodes];
        long poolBytes = 0;
        for (NodeBlockPool pool : pools) {
            poolBytes += pool.bytes();
        }
        // the dirty limits are ratios of the whole pool (what this cache may grow to); a reclaim gives back clean
        // blocks only, so a write-back LUN's dirty blocks are not taken from it
        this.dirty = new DirtyAccount(poolBytes, params.dirtyRatio(), blockSize);
        this.partitions = new CachePartition[hash.totalPartitions()];
        int perNode = params.partitionsPerNode();
        for (int n = 0; n < nodes; n++) {
            shares[n] = new PoolShare(pools[n]);
            int slots = Math.max(2, pools[n].blocks() / perNode);
            CachePartition[] mine = new CachePartition[perNode];
            for (int i = 0; i < perNode; i++) {
                mine[i] = new CachePartition(new PartitionSetup(
                        nodeIds[n], shares[n], slots, blockSize, granule, counters, slotSink, dirty));
            }
            for (int p = 0; p < partitions.length; p++) {
                if (hash.nodeOfPartition(p) == n) {
                    partitions[p] = mine[hash.indexInNode(p)];
                }
            }
            shares[n].join(mine);
        }
    }

    CachePartition partitionOf(long block) {
        return partitions[hash.partition(block)];
    }

    /** Bytes of this cache block inside the device (the last one may be short). */
    int blockBytes(long block) {
        return (int) Math.min(blockSize, size - block * blockSize);
    }

    /** Granules of this cache block inside the device. */
    int granules(long block) {
        return (blockBytes(block) + granule - 1) / granule;
    }

    /** Blocks this cache holds now, of every pool. */
    int heldBlocks() {
        int n = 0;
        for (PoolShare share : shares) {
            n += share.heldBlocks();
        }
        return n;
    }

    /** Every block back to the pools (closing: nothing pinned or in flight). */
    void leavePools() {
        for (PoolShare share : shares) {
            share.leave();
        }
    }

    int totalSlots() {
        int n = 0;
        for (CachePartition p : partitions) {
            n += p.slots();
        }
        return n;
    }

    /** Whether any partition holds a block dirty since {@code cutoff} or before that no batch is writing yet. */
    boolean hasDirtySince(long cutoff) {
        for (CachePartition p : partitions) {
            if (p.hasDirtySince(cutoff)) {
                return true;
            }
        }
        return false;
    }

    int pinnedSlots() {
        int n = 0;
        for (CachePartition p : partitions) {
            n += p.pinnedSlots();
        }
        return n;
    }

    /** Slot states per partition: state, m(apped), d(irty), w(riting back), pins. */
    void describe(StringBuilder sb) {
        for (int i = 0; i < partitions.length; i++) {
            sb.append("partition ").append(i).append(' ');
            partitions[i].describe(sb);
            sb.append('\n');
        }
    }
}
