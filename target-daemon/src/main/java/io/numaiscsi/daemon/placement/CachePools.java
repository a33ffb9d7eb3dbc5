package io.numaiscsi.daemon.placement;

import io.numaiscsi.cache.NodeBlockPool;
import io.numaiscsi.config.CacheSettings;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaTopology;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's cache memory: one {@link NodeBlockPool} of {@code cache.size-per-node} per NUMA node, allocated at
 * start and shared by every LUN homed on the node, those added later included; so the daemon holds exactly that much
 * per node whatever the LUN count.
 */
public final class CachePools {
    private static final Logger LOG = LoggerFactory.getLogger(CachePools.class);

    private final NodeBlockPool[] pools;
    private final NodeMemory memory;

    /** @param sizePerNode bytes per node; a node with fewer than two blocks per partition gets no pool */
    public CachePools(long[] sizePerNode, int blockSize, int partitionsPerNode, NodeMemory memory) {
        this.memory = memory;
        pools = new NodeBlockPool[sizePerNode.length];
        for (int n = 0; n < pools.length; n++) {
            if (sizePerNode[n] / partitionsPerNode / blockSize >= 2) {
                pools[n] = NodeBlockPool.allocate(n, sizePerNode[n], blockSize, memory);
            }
        }
    }

    /**
     * The pools {@code c} asks for: with {@code cache.mode: numa} one per node of {@code topology}, of the configured
     * size or, with auto sizing, of what the node's free memory allows; none otherwise.
     */
    public static CachePools of(CacheSettings c, NumaTopology topology, NodeMemory memory) {
        long[] sizes = new long[topology.nodeCount()];
        if (c.mode() == CacheSettings.Mode.NUMA) {
            for (int n = 0; n < sizes.length; n++) {
                sizes[n] = c.autoSize()
                        ? CacheSizing.auto(
                                CacheSizing.freeBytes(topology.node(n).osNode()), c.partitionsPerNode(), c.blockSize())
                        : c.sizePerNode();
                LOG.info(
                        "cache on node {}: a pool of {} bytes{} shared by the node's LUNs, {} memory",
                        n,
                        sizes[n],
                        c.autoSize() ? " (auto: " + CacheSizing.rule() + ")" : "",
                        memory.bindsMemory() ? "node-bound" : "not node-bound");
            }
        }
        return new CachePools(sizes, c.blockSize(), c.partitionsPerNode(), memory);
    }

    /** Node {@code node}'s pool, or null when it has none. */
    public NodeBlockPool pool(int node) {
        return pools[node];
    }

    /** Every pool's memory, e.g. for a transport to register once at start. */
    public List<ByteBuffer> memory() {
        List<ByteBuffer> all = new ArrayList<>();
        for (NodeBlockPool p : pools) {
            if (p != null) {
                all.addAll(p.memory());
            }
        }
        return all;
    }

    /** Frees the memory once every cache has closed. */
    public void free() {
        for (int n = 0; n < pools.length; n++) {
            if (pools[n] != null) {
                pools[n].free(memory);
                pools[n] = null;
            }
        }
    }
}
