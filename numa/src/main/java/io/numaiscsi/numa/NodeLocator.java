package io.numaiscsi.numa;

/**
 * Where the calling CPU and a piece of memory sit, as dense NUMA node indexes (-1: unknown). The daemon plugs in the
 * real one (thread pinning and the kernel's page placement); {@link #SINGLE_NODE} answers 0 for everything.
 */
public interface NodeLocator {
    NodeLocator SINGLE_NODE = new NodeLocator() {
        @Override
        public int nodes() {
            return 1;
        }

        @Override
        public int currentCpuNode() {
            return 0;
        }

        @Override
        public int memoryNode(long address) {
            return 0;
        }
    };

    int nodes();

    /** The node of the CPU the calling thread runs on; -1 when the thread is not pinned to one node. */
    int currentCpuNode();

    /** The node holding the page at {@code address}; -1 when unknown (not faulted in, or no NUMA information). */
    int memoryNode(long address);
}
