package io.numaiscsi.cache;

/**
 * Closest affinity: a request is split at cache-block boundaries, the bytes per node summed, and
 * the node holding most of them serves it (ties go to the node it arrived on, then the lowest).
 * Requests under the threshold are served where they arrive. Stateless and allocation-free: the
 * sums are taken per node over the request's partition groups (a handful per request).
 */
public final class AffinityRouter {
    private final PartitionHash hash;
    private final int blockSize;
    private final int threshold;
    private final long groupBytes;
    /** The real node of each of the hash's nodes. */
    private final int[] nodeIds;

    public AffinityRouter(PartitionHash hash, int blockSize, int threshold) {
        this(hash, blockSize, threshold, allNodes(hash.nodes()));
    }

    /** A router whose hash spans only the nodes {@code nodeIds} (e.g. a LUN homed on one node). */
    public AffinityRouter(PartitionHash hash, int blockSize, int threshold, int[] nodeIds) {
        if (nodeIds.length != hash.nodes()) {
            throw new IllegalArgumentException(nodeIds.length + " node ids for a hash over " + hash.nodes() + " nodes");
        }
        this.nodeIds = nodeIds.clone();
        this.hash = hash;
        this.blockSize = blockSize;
        this.threshold = threshold;
        this.groupBytes = (long) blockSize * hash.neighbours();
    }

    /** Node ids 0..n-1: a hash over every node of the machine. */
    static int[] allNodes(int n) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        return ids;
    }

    /** true when the request is large enough to be routed and could be served elsewhere than {@code arrivalNode}. */
    public boolean routes(int length, int arrivalNode) {
        return length >= threshold && (hash.nodes() > 1 || nodeIds[0] != arrivalNode);
    }

    /** The node that should serve {@code [offset, offset+length)} arriving on {@code arrivalNode}. */
    public int route(long offset, long length, int arrivalNode) {
        if (length < threshold) {
            return arrivalNode;
        }
        if (hash.nodes() == 1) {
            return nodeIds[0];
        }
        int best = arrivalNode;
        long bestBytes = bytesOnNode(offset, length, arrivalNode);
        for (int n : nodeIds) {
            if (n == arrivalNode) {
                continue;
            }
            long b = bytesOnNode(offset, length, n);
            if (b > bestBytes) {
                best = n;
                bestBytes = b;
            }
        }
        return best;
    }

    /** Bytes of the request whose cache blocks belong to (real) {@code node}. */
    public long bytesOnNode(long offset, long length, int node) {
        long total = 0;
        long pos = offset;
        long end = offset + length;
        while (pos < end) {
            long groupEnd = (pos / groupBytes + 1) * groupBytes;
            long n = Math.min(end, groupEnd) - pos;
            if (nodeIds[hash.nodeOfBlock(pos / blockSize)] == node) {
                total += n;
            }
            pos += n;
        }
        return total;
    }

    public int threshold() {
        return threshold;
    }
}
