package io.numaiscsi.daemon.placement;

/**
 * Each node's cache memory ({@code cache.size-per-node}) divided among the LUNs homed there at start, so the daemon
 * holds exactly that much per node whatever the LUN count. A LUN added while running finds its node's memory given
 * out and is served without the cache.
 */
public final class CacheBudget {
    private final long[] share;
    private final int[] left;

    /**
     * @param sizePerNode bytes per node
     * @param lunsAtStart LUNs homed on each node at start
     * @param unit        the cache's allocation unit (partitions x block size); a share is a multiple of it
     */
    public CacheBudget(long[] sizePerNode, int[] lunsAtStart, long unit) {
        share = new long[sizePerNode.length];
        left = lunsAtStart.clone();
        for (int n = 0; n < share.length; n++) {
            long s = lunsAtStart[n] == 0 ? 0 : sizePerNode[n] / lunsAtStart[n] / unit * unit;
            share[n] = s >= 2 * unit ? s : 0;
        }
    }

    /** The cache bytes of the next LUN on {@code node}; 0: no cache for it. */
    public synchronized long take(int node) {
        if (left[node] == 0) {
            return 0;
        }
        left[node]--;
        return share[node];
    }

    public long share(int node) {
        return share[node];
    }
}
