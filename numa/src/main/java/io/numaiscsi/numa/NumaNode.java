package io.numaiscsi.numa;

import java.util.Arrays;
import java.util.BitSet;

/**
 * One NUMA node as this process uses it. {@code index} is dense (0..n-1, what the cache and the
 * daemon use); {@code osNode} is the kernel's node number (what libnuma wants), which may be sparse.
 */
public final class NumaNode {
    private final int index;
    private final int osNode;
    private final BitSet cpus;
    private final long memoryBytes;
    private final int[] distances;

    NumaNode(int index, int osNode, BitSet cpus, long memoryBytes, int[] distances) {
        this.index = index;
        this.osNode = osNode;
        this.cpus = (BitSet) cpus.clone();
        this.memoryBytes = memoryBytes;
        this.distances = distances.clone();
    }

    public int index() {
        return index;
    }

    public int osNode() {
        return osNode;
    }

    /** A copy of this node's CPU set. */
    public BitSet cpus() {
        return (BitSet) cpus.clone();
    }

    public int cpuCount() {
        return cpus.cardinality();
    }

    public boolean hasCpu(int cpu) {
        return cpu >= 0 && cpus.get(cpu);
    }

    public long memoryBytes() {
        return memoryBytes;
    }

    /** ACPI SLIT distance to the node with this index (10 = local); 0 when unknown. */
    public int distance(int toIndex) {
        return toIndex >= 0 && toIndex < distances.length ? distances[toIndex] : 0;
    }

    @Override
    public String toString() {
        return "node" + index + "(os " + osNode + ", cpus " + cpus + ", " + (memoryBytes >> 20) + " MiB, distances "
                + Arrays.toString(distances) + ")";
    }
}
