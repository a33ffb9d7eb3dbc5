package io.numaiscsi.numa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NumaTopologyTest {
    @TempDir
    Path sys;

    private void node(int os, String cpulist, long memKb, String distance) throws IOException {
        Path d = Files.createDirectories(sys.resolve("devices/system/node/node" + os));
        Files.writeString(d.resolve("cpulist"), cpulist + "\n");
        Files.writeString(
                d.resolve("meminfo"),
                "Node " + os + " MemTotal:       " + memKb + " kB\nNode " + os + " MemFree:  12 kB\n");
        Files.writeString(d.resolve("distance"), distance + "\n");
    }

    private void nic(String name, String numaNode) throws IOException {
        Path d = Files.createDirectories(sys.resolve("class/net/" + name + "/device"));
        Files.writeString(d.resolve("numa_node"), numaNode + "\n");
    }

    @Test
    void oneNode() throws IOException {
        node(0, "0-1", 1024, "10");
        Files.createDirectories(sys.resolve("devices/system/node/power")); // not a node directory
        NumaTopology t = new NumaTopology(sys);
        assertEquals(1, t.nodeCount());
        NumaNode n = t.node(0);
        assertEquals(2, n.cpuCount());
        assertEquals(1024L * 1024, n.memoryBytes());
        assertEquals(10, n.distance(0));
        assertEquals(0, t.nodeOfCpu(1));
        assertFalse(t.isPretend());
    }

    @Test
    void twoSparseNodesWithDistances() throws IOException {
        node(0, "0-3,8-11", 2048, "10 21");
        node(2, "4-7,12-15", 4096, "21 10");
        NumaTopology t = new NumaTopology(sys);
        assertEquals(2, t.nodeCount());
        assertEquals(2, t.node(1).osNode());
        assertEquals(1, t.node(1).index());
        assertEquals(21, t.node(0).distance(1));
        assertEquals(10, t.node(1).distance(1));
        assertEquals(0, t.nodeOfCpu(9));
        assertEquals(1, t.nodeOfCpu(12));
        assertEquals(0, t.nodeOfCpu(99), "unknown CPU falls back to node 0");
        assertEquals(8, t.node(1).cpuCount());
    }

    @Test
    void networkInterfaceNode() throws IOException {
        node(0, "0-1", 1, "10 20");
        node(1, "2-3", 1, "20 10");
        nic("eth1", "1");
        nic("eth0", "-1");
        nic("bad", "x");
        NumaTopology t = new NumaTopology(sys);
        assertEquals(1, t.nodeOfNetworkInterface("eth1"));
        assertEquals(0, t.nodeOfNetworkInterface("eth0"));
        assertEquals(0, t.nodeOfNetworkInterface("bad"));
        assertEquals(0, t.nodeOfNetworkInterface("lo"), "missing device directory");
    }

    @Test
    void noNodeDirectoryIsOneNodeWithAllCpus() {
        NumaTopology t = new NumaTopology(sys);
        assertEquals(1, t.nodeCount());
        assertEquals(Runtime.getRuntime().availableProcessors(), t.node(0).cpuCount());
    }

    @Test
    void pretendSplitsCpusContiguously() throws IOException {
        node(0, "0-7", 8192, "10");
        NumaTopology t = new NumaTopology(sys).pretend(2);
        assertTrue(t.isPretend());
        assertEquals(2, t.nodeCount());
        BitSet first = new BitSet();
        first.set(0, 4);
        assertEquals(first, t.node(0).cpus());
        assertEquals(1, t.nodeOfCpu(6));
        assertEquals(20, t.node(0).distance(1));
        assertEquals(10, t.node(1).distance(1));
        assertEquals(4096L * 1024, t.node(1).memoryBytes());
    }

    @Test
    void pretendMoreNodesThanCpusSharesThem() throws IOException {
        node(0, "0-1", 8, "10");
        NumaTopology t = new NumaTopology(sys).pretend(3);
        assertEquals(3, t.nodeCount());
        assertTrue(t.node(2).hasCpu(0));
        assertEquals(1, t.node(2).cpuCount());
    }

    @Test
    void pretendNoMoreThanRealKeepsReal() throws IOException {
        node(0, "0", 1, "10 20");
        node(1, "1", 1, "20 10");
        NumaTopology real = new NumaTopology(sys);
        assertSame(real, real.pretend(2));
        assertThrows(IllegalArgumentException.class, () -> real.pretend(1));
    }
}
