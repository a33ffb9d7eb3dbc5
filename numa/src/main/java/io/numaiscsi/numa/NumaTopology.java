package io.numaiscsi.numa;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nodes, their CPUs, memory and distances, read from {@code <sysfs>/devices/system/node}. A
 * machine without that directory (or a kernel without NUMA) is one node holding every CPU.
 * {@link #pretend(int)} splits the CPUs into more nodes than the machine has, so routing can be
 * exercised on a one-node host; such a topology binds no memory.
 */
public final class NumaTopology {
    private static final Logger LOG = LoggerFactory.getLogger(NumaTopology.class);
    private static final Pattern NODE_DIR = Pattern.compile("node([0-9]+)");
    private static final Pattern MEM_TOTAL = Pattern.compile("MemTotal:\\s+([0-9]+)\\s*kB");

    private final Path sysRoot;
    private final List<NumaNode> nodes;
    private final boolean pretend;

    /** Reads the topology under a sysfs root ({@code /sys} on a real machine; a fake tree in tests). */
    public NumaTopology(Path sysRoot) {
        this(sysRoot, read(sysRoot), false);
    }

    private NumaTopology(Path sysRoot, List<NumaNode> nodes, boolean pretend) {
        this.sysRoot = sysRoot;
        this.nodes = List.copyOf(nodes);
        this.pretend = pretend;
    }

    /** This machine's topology from /sys. */
    public static NumaTopology detect() {
        return new NumaTopology(Path.of("/sys"));
    }

    public int nodeCount() {
        return nodes.size();
    }

    public List<NumaNode> nodes() {
        return nodes;
    }

    public NumaNode node(int index) {
        return nodes.get(index);
    }

    /** true for a {@link #pretend(int)} topology: no memory binding, only CPU partitioning. */
    public boolean isPretend() {
        return pretend;
    }

    /** Index of the node holding this CPU; 0 when no node lists it. */
    public int nodeOfCpu(int cpu) {
        for (NumaNode n : nodes) {
            if (n.hasCpu(cpu)) {
                return n.index();
            }
        }
        return 0;
    }

    /**
     * Index of the node the network interface's device hangs off ({@code /sys/class/net/IF/device/numa_node});
     * -1, missing or unreadable (virtual interfaces) gives node 0. In a pretend topology every interface reports
     * node 0.
     */
    public int nodeOfNetworkInterface(String ifName) {
        return Math.max(0, reportedNodeOfNetworkInterface(ifName));
    }

    /**
     * As {@link #nodeOfNetworkInterface}, but -1 where the system names no node (a virtual interface, a device with
     * {@code numa_node} -1), for figures that must say "unknown" rather than guess; a one-node machine says 0.
     */
    public int reportedNodeOfNetworkInterface(String ifName) {
        if (pretend || nodes.size() == 1) {
            return 0; // a pretend topology puts every interface on node 0
        }
        if (ifName.isEmpty() || ifName.contains("/")) {
            return -1;
        }
        Path p = sysRoot.resolve("class/net").resolve(ifName).resolve("device/numa_node");
        try {
            int os = Integer.parseInt(Files.readString(p).trim());
            for (NumaNode n : nodes) {
                if (n.osNode() == os) {
                    return n.index();
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no device directory (lo, bridges, veth) or a value we cannot read
        }
        return -1;
    }

    /**
     * Splits all CPUs into {@code count} pretend nodes, contiguously (node k takes the k-th run of
     * CPUs); when there are fewer CPUs than nodes, CPUs are shared round robin. Distances are 10 local,
     * 20 remote. A machine that already has {@code count} or more real nodes keeps its real topology.
     */
    public NumaTopology pretend(int count) {
        if (count < 2) {
            throw new IllegalArgumentException("pretend nodes must be at least 2: " + count);
        }
        if (count <= nodes.size()) {
            LOG.info("pretend-nodes {}: the machine has {} real nodes; using the real topology", count, nodes.size());
            return this;
        }
        BitSet all = new BitSet();
        long memory = 0;
        for (NumaNode n : nodes) {
            all.or(n.cpus());
            memory += n.memoryBytes();
        }
        int[] cpus = all.stream().toArray();
        List<NumaNode> fake = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            BitSet set = new BitSet();
            if (cpus.length >= count) {
                int from = (int) ((long) cpus.length * k / count);
                int to = (int) ((long) cpus.length * (k + 1) / count);
                for (int i = from; i < to; i++) {
                    set.set(cpus[i]);
                }
            } else if (cpus.length > 0) {
                set.set(cpus[k % cpus.length]);
            }
            int[] distances = new int[count];
            for (int j = 0; j < count; j++) {
                distances[j] = j == k ? 10 : 20;
            }
            fake.add(new NumaNode(k, nodes.isEmpty() ? 0 : nodes.get(0).osNode(), set, memory / count, distances));
        }
        LOG.info(
                "pretending {} NUMA nodes on a machine with {}: CPUs split as {}; memory binding is skipped",
                count,
                nodes.size(),
                fake);
        return new NumaTopology(sysRoot, fake, true);
    }

    private static List<NumaNode> read(Path sysRoot) {
        Path dir = sysRoot.resolve("devices/system/node");
        List<Integer> osNodes = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    Matcher m = NODE_DIR.matcher(p.getFileName().toString());
                    if (m.matches() && Files.isDirectory(p)) {
                        osNodes.add(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                LOG.warn("cannot list {}: {}", dir, e.toString());
            }
        }
        osNodes.sort(null);
        List<NumaNode> out = new ArrayList<>(osNodes.size());
        if (osNodes.isEmpty()) {
            BitSet cpus = new BitSet();
            cpus.set(0, Runtime.getRuntime().availableProcessors());
            LOG.info("no NUMA information under {}: one node with CPUs {}", dir, cpus);
            out.add(new NumaNode(0, 0, cpus, Runtime.getRuntime().maxMemory(), new int[] {10}));
            return out;
        }
        for (int i = 0; i < osNodes.size(); i++) {
            Path nd = dir.resolve("node" + osNodes.get(i));
            BitSet cpus = CpuList.parse(readOr(nd.resolve("cpulist"), ""));
            long mem = memTotal(readOr(nd.resolve("meminfo"), ""));
            int[] distances = distances(readOr(nd.resolve("distance"), ""), osNodes);
            out.add(new NumaNode(i, osNodes.get(i), cpus, mem, distances));
        }
        return out;
    }

    /** The distance file lists one value per OS node in ascending order; re-indexed to dense indexes. */
    private static int[] distances(String text, List<Integer> osNodes) {
        int[] d = new int[osNodes.size()];
        String t = text.trim();
        if (t.isEmpty()) {
            return d;
        }
        String[] parts = t.split("\\s+", -1);
        for (int i = 0; i < d.length && i < parts.length; i++) {
            try {
                d[i] = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                d[i] = 0;
            }
        }
        return d;
    }

    private static long memTotal(String meminfo) {
        Matcher m = MEM_TOTAL.matcher(meminfo);
        return m.find() ? Long.parseLong(m.group(1)) * 1024 : 0;
    }

    private static String readOr(Path p, String dflt) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return dflt;
        }
    }

    @Override
    public String toString() {
        return (pretend ? "pretend " : "") + nodes;
    }
}
