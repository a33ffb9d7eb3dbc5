package io.numaiscsi.cache;

import io.numaiscsi.counters.PerThreadCounters;
import java.util.Arrays;

/**
 * Per-node evidence for the daemon's metrics. Indexed by node. Counted by whichever thread serves the request (the
 * unit's thread, a node's workers, a fill's completion), each in cells of its own ({@link PerThreadCounters}).
 */
public final class CacheCounters {
    private static final int HITS = 0;
    private static final int MISSES = 1;
    private static final int EVICTIONS = 2;
    private static final int FORWARDS = 3;
    private static final int BYPASSES = 4;
    private static final int IN_PLACE_BYTES = 5;
    private static final int READ_THROUGHS = 6;
    private static final int KINDS = 7;

    private final int nodes;
    /** [kind][node], flattened. */
    private final PerThreadCounters counts;

    CacheCounters(int nodes) {
        this.nodes = nodes;
        this.counts = new PerThreadCounters(KINDS * nodes);
    }

    void hit(int node) {
        counts.increment(HITS * nodes + node);
    }

    void miss(int node) {
        counts.increment(MISSES * nodes + node);
    }

    void eviction(int node) {
        counts.increment(EVICTIONS * nodes + node);
    }

    void forward(int node) {
        counts.increment(FORWARDS * nodes + node);
    }

    void bypass(int node) {
        counts.increment(BYPASSES * nodes + node);
    }

    /** {@code bytes} of a block of node {@code node} handed to a transport in place. */
    void inPlace(int node, long bytes) {
        counts.add(IN_PLACE_BYTES * nodes + node, bytes);
    }

    /** A miss on node {@code node} read through (a miss and a read-through). */
    void readThrough(int node) {
        counts.increment(MISSES * nodes + node);
        counts.increment(READ_THROUGHS * nodes + node);
    }

    /**
     * Counts per node (where the bytes were touched is {@code DataTouches}' business): hits and misses (blocks looked up in that node's partitions; a read waiting
     * on a block another request is filling counts as a miss), evictions, requests forwarded
     * to that node, and misses served straight from the backing device because every block of the
     * partition was pinned (bypasses), and bytes of that node's blocks handed to a transport in place, without a
     * copy (a shared read: iSER's RDMA Write from the registered cache region, or a large read sent over TCP), and
     * misses read straight from the backing device into the caller's buffer because the admission policy gave them no
     * slot (read-throughs; each is also counted in misses).
     */
    public record Snapshot(
            long[] hits,
            long[] misses,
            long[] evictions,
            long[] forwards,
            long[] bypasses,
            long[] inPlaceBytes,
            long[] readThroughs) {
        public long total(long[] perNode) {
            long t = 0;
            for (long v : perNode) {
                t += v;
            }
            return t;
        }
    }

    public Snapshot snapshot() {
        long[] all = counts.snapshot();
        return new Snapshot(
                kind(all, HITS),
                kind(all, MISSES),
                kind(all, EVICTIONS),
                kind(all, FORWARDS),
                kind(all, BYPASSES),
                kind(all, IN_PLACE_BYTES),
                kind(all, READ_THROUGHS));
    }

    private long[] kind(long[] all, int kind) {
        return Arrays.copyOfRange(all, kind * nodes, (kind + 1) * nodes);
    }
}
