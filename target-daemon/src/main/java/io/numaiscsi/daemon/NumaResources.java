package io.numaiscsi.daemon;

import io.numaiscsi.config.NumaSettings;
import io.numaiscsi.numa.CpuPinning;
import io.numaiscsi.numa.NodeMemory;
import io.numaiscsi.numa.NumaNode;
import io.numaiscsi.numa.NumaTopology;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machine's NUMA layout as the daemon uses it: the topology (real, or split into pretend nodes),
 * node-bound memory for cache regions, and one worker group per node for requests the cache routes
 * there. Created only when something needs it.
 */
final class NumaResources implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NumaResources.class);

    private final NumaTopology topology;
    private NodeMemory memory;
    private ExecutorService[] workers;

    NumaResources(NumaSettings settings) {
        NumaTopology real = NumaTopology.detect();
        this.topology = settings.pretendNodes() > 1 ? real.pretend(settings.pretendNodes()) : real;
        LOG.info("NUMA: {} node(s){}", topology.nodeCount(), topology.isPretend() ? " (pretend: CPUs split, memory not bound)" : "");
    }

    NumaTopology topology() {
        return topology;
    }

    /** The node of the network interface a portal serves; loopback and unknown interfaces count as node 0. */
    NumaNode portalNode() {
        return topology.node(0);
    }

    synchronized NodeMemory memory() {
        if (memory == null) {
            memory = NodeMemory.open(topology);
        }
        return memory;
    }

    /** Worker threads per node, pinned to that node's CPUs, for requests routed to the node. */
    synchronized ExecutorService[] nodeWorkers() {
        if (workers == null) {
            workers = new ExecutorService[topology.nodeCount()];
            for (int i = 0; i < workers.length; i++) {
                NumaNode node = topology.node(i);
                workers[i] = Executors.newFixedThreadPool(Math.max(1, node.cpuCount()),
                        CpuPinning.threadFactory(node, "node" + i + "-worker", true));
            }
        }
        return workers;
    }

    @Override
    public synchronized void close() {
        if (workers != null) {
            for (ExecutorService w : workers) {
                w.shutdown();
            }
        }
        if (memory != null) {
            memory.close();
        }
    }
}
