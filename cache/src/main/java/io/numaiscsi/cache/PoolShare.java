package io.numaiscsi.cache;

/**
 * What one cache (one LUN) holds of one node's {@link NodeBlockPool}: its partitions on that node take blocks from the
 * pool as they miss and give them back when the pool reclaims for a member under its minimum share, or all of them
 * when the cache closes.
 */
final class PoolShare {
    final NodeBlockPool pool;
    /** Blocks held; changed only under the pool's lock. */
    int held;
    /** Found the pool dry while under its minimum share; cleared when it reaches it. Under the pool's lock. */
    boolean claimed;

    private CachePartition[] partitions = new CachePartition[0];
    private int nextVictim;

    PoolShare(NodeBlockPool pool) {
        this.pool = pool;
    }

    int heldBlocks() {
        synchronized (pool) {
            return held;
        }
    }

    void join(CachePartition[] nodePartitions) {
        partitions = nodePartitions.clone();
        pool.join(this);
    }

    /** Gives back up to {@code wanted} blocks, free ones first, then least recently used clean ones; returns how many. */
    int giveBack(int wanted) {
        int given = 0;
        for (int tries = 0; tries < partitions.length && given < wanted; tries++) {
            CachePartition p = partitions[nextVictim];
            nextVictim = (nextVictim + 1) % partitions.length;
            int share = Math.max(1, (wanted - given + partitions.length - 1 - tries) / (partitions.length - tries));
            given += p.giveBack(Math.min(share, wanted - given));
        }
        return given;
    }

    /** Gives every block back and leaves the pool (the cache is closing: nothing is pinned or in flight). */
    void leave() {
        for (CachePartition p : partitions) {
            p.giveBack(Integer.MAX_VALUE);
        }
        pool.leave(this);
    }
}
