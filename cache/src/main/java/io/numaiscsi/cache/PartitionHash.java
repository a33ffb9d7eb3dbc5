package io.numaiscsi.cache;

/**
 * {@code partition = (block / neighbours) mod totalPartitions}; partition p belongs to node
 * {@code p mod nodes} and is that node's partition number {@code p / nodes}. Neighbouring blocks
 * share a partition (a large request takes few locks); consecutive groups alternate between nodes,
 * so a request of up to one group lands on one node and the nodes share the load evenly.
 */
public final class PartitionHash {
    private final int nodes;
    private final int neighbours;
    private final int totalPartitions;

    public PartitionHash(int nodes, int partitionsPerNode, int neighbours) {
        if (nodes < 1 || partitionsPerNode < 1 || neighbours < 1) {
            throw new IllegalArgumentException("nodes, partitions and neighbours must be positive");
        }
        this.nodes = nodes;
        this.neighbours = neighbours;
        this.totalPartitions = nodes * partitionsPerNode;
    }

    public int partition(long block) {
        return (int) ((block / neighbours) % totalPartitions);
    }

    public int nodeOfPartition(int partition) {
        return partition % nodes;
    }

    /** The partition's index within its node's region. */
    public int indexInNode(int partition) {
        return partition / nodes;
    }

    public int nodeOfBlock(long block) {
        return (int) ((block / neighbours) % nodes); // totalPartitions is a multiple of nodes
    }

    public int nodes() {
        return nodes;
    }

    public int neighbours() {
        return neighbours;
    }

    public int totalPartitions() {
        return totalPartitions;
    }
}
