package io.numaiscsi.daemon;

import io.numaiscsi.config.NumaSettings;
import io.numaiscsi.config.Portal;
import io.numaiscsi.daemon.events.BlockingWorkPool;
import io.numaiscsi.daemon.events.ThreadPlacements;
import io.numaiscsi.daemon.placement.NodeLocalAllocator;
import io.numaiscsi.daemon.placement.PageNodeLocator;
import io.numaiscsi.numa.CpuPinning;
import io.numaiscsi.numa.NodeLocator;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaNode;
import io.numaiscsi.numa.NumaTopology;
import io.numaiscsi.numa.PageNodes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machine's NUMA layout as the daemon uses it: the topology (real, or split into pretend nodes), the portal's
 * node, node-bound memory for cache regions and RAM disks, per node a buffer pool, a backing-I/O pool and a worker
 * group for requests the cache routes there (threads pinned to the node), and where memory and threads sit.
 */
final class NumaResources implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NumaResources.class);
    /**
     * Tasks that may wait per pool: more than every session's command window could queue on one node in practice
     * (a full pool answers a command with a retryable status instead of growing without bound).
     */
    private static final int TASKS_PER_POOL = 1 << 16;
    /** Pooled direct buffers aligned to 4 KiB so backing-store I/O can use O_DIRECT without a bounce copy. */
    private final NumaTopology topology;

    private final NumaNode portalNode;
    private final NodeLocalAllocator allocator;
    private final NodeLocator locator;
    private final int ioThreadsPerNode;
    private NodeMemory memory;
    private BlockingWorkPool[] workers;
    private final BlockingWorkPool[] io;
    private final ThreadFactory[] ringReapers;

    NumaResources(NumaSettings settings, List<Portal> portals, int ioThreadsPerNode) {
        NumaTopology real = NumaTopology.detect();
        this.topology = settings.pretendNodes() > 1 ? real.pretend(settings.pretendNodes()) : real;
        this.portalNode = topology.node(portalNodeIndex(topology, portals));
        this.ioThreadsPerNode = ioThreadsPerNode;
        this.io = new BlockingWorkPool[topology.nodeCount()];
        this.ringReapers = new ThreadFactory[topology.nodeCount()];
        this.allocator = NodeLocalAllocator.forNodes(topology);
        this.locator = topology.nodeCount() == 1
                ? NodeLocator.SINGLE_NODE
                : new PageNodeLocator(topology.nodeCount(), PageNodes.open(topology));
        LOG.info(
                "NUMA: {} node(s){}; portal interface on node {}; placement {}",
                topology.nodeCount(),
                topology.isPretend() ? " (pretend: CPUs split, memory not bound)" : "",
                portalNode.index(),
                settings.placement().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }

    /**
     * The node of the network interface holding {@code host} (for an iSER portal: its RDMA device's, which sits
     * on that interface's PCI device, or is a software device over it), -1 when the system does not say.
     */
    int reportedNodeOfAddress(String host) {
        String ifName = interfaceOf(host);
        return ifName == null ? -1 : topology.reportedNodeOfNetworkInterface(ifName);
    }

    /** The node of the first portal's interface ({@code /sys/class/net/IF/device/numa_node}); loopback: node 0. */
    private static int portalNodeIndex(NumaTopology topology, List<Portal> portals) {
        if (portals.isEmpty() || topology.nodeCount() == 1) {
            return 0;
        }
        String ifName = interfaceOf(portals.get(0).host());
        return ifName == null ? 0 : topology.nodeOfNetworkInterface(ifName);
    }

    /** The name of the network interface holding the address {@code host}; null when none does or it cannot say. */
    private static String interfaceOf(String host) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(InetAddress.getByName(host));
            return nif == null ? null : nif.getName();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    NumaTopology topology() {
        return topology;
    }

    NumaNode portalNode() {
        return portalNode;
    }

    NodeLocalAllocator allocator() {
        return allocator;
    }

    NodeLocator locator() {
        return locator;
    }

    synchronized NodeMemory memory() {
        if (memory == null) {
            memory = NodeMemory.open(topology);
        }
        return memory;
    }

    /** Worker threads per node, pinned to that node's CPUs, for requests routed to the node. */
    synchronized BlockingWorkPool[] nodeWorkers() {
        if (workers == null) {
            workers = new BlockingWorkPool[topology.nodeCount()];
            for (int i = 0; i < workers.length; i++) {
                NumaNode node = topology.node(i);
                workers[i] = new BlockingWorkPool(
                        "node" + i + "-worker",
                        Math.max(1, node.cpuCount()),
                        TASKS_PER_POOL,
                        ThreadPlacements.recording(CpuPinning.threadFactory(node, "node" + i + "-worker", true), i));
            }
        }
        return workers;
    }

    /** The blocking backing-store I/O threads of one node ({@code daemon.io-threads} each), pinned to it. */
    synchronized BlockingWorkPool ioExecutor(int node) {
        if (io[node] == null) {
            io[node] = new BlockingWorkPool(
                    "backing-io-n" + node,
                    ioThreadsPerNode,
                    TASKS_PER_POOL,
                    ThreadPlacements.recording(
                            CpuPinning.threadFactory(topology.node(node), "backing-io-n" + node, true), node));
        }
        return io[node];
    }

    /** The completion threads of one node's io_uring rings (one per file LUN), pinned to it. */
    synchronized ThreadFactory ringReapers(int node) {
        if (ringReapers[node] == null) {
            ringReapers[node] = ThreadPlacements.recording(
                    CpuPinning.threadFactory(topology.node(node), "backing-uring-n" + node, true), node);
        }
        return ringReapers[node];
    }

    @Override
    public synchronized void close() {
        for (BlockingWorkPool e : io) {
            if (e != null) {
                e.shutdown();
            }
        }
        if (workers != null) {
            for (BlockingWorkPool w : workers) {
                w.shutdown();
            }
        }
        if (memory != null) {
            memory.close();
        }
    }
}
