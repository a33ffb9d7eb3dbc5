package io.numaiscsi.daemon.placement;

import io.numaiscsi.numa.NodeLocator;
import io.numaiscsi.numa.NodeThread;
import io.numaiscsi.numa.PageNodes;

/** CPU node from the thread's pinning, memory node from the kernel's page placement. */
public record PageNodeLocator(int nodes, PageNodes pages) implements NodeLocator {

    @Override
    public int currentCpuNode() {
        return NodeThread.currentNode();
    }

    @Override
    public int memoryNode(long address) {
        return pages == null ? -1 : pages.nodeOf(address);
    }
}
