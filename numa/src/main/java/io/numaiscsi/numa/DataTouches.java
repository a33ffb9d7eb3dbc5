package io.numaiscsi.numa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.numaiscsi.counters.PerThreadCounters;

/**
 * Every byte a CPU or an RDMA device touches on one data path (a logical unit's, or an iSER portal's transport), by
 * what touched it, the node of the touching CPU (or device) and the node of the memory. A copy touches its source and
 * its destination, so it is recorded twice. The kernel's socket copies are recorded on their user-space side (the
 * kernel's own buffers are its business), by the thread that makes the system call. Unknown nodes (an unpinned
 * thread, a heap array, the page cache, a NIC with no node) are kept apart and count as not local.
 *
 * <p>Many threads record into one (a unit's thread, connection threads, backing I/O and cache workers): each counts in
 * cells of its own ({@link PerThreadCounters}), summed when read.
 */
public final class DataTouches {
    /** Who touched the bytes. */
    public enum Kind {
        /** The kernel copying Data-In out of our memory into a socket. */
        SOCKET_SEND,
        /** The kernel copying received PDUs into our memory. */
        SOCKET_RECEIVE,
        /** Our own copies: cache to network buffer, received data into a write buffer or a cache block. */
        COPY,
        /** A backing store moving data between its storage and our buffers (RAM copies, buffered file I/O). */
        BACKING,
        /** The RDMA device reading our memory (the source of an RDMA Write or a Send); its node is the device's. */
        HCA_READ,
        /** The RDMA device writing our memory (an RDMA Read's data, a receive); its node is the device's. */
        HCA_WRITE
    }

    static final int PAGE = 4096;
    private static final Kind[] KINDS = Kind.values();

    private final NodeLocator locator;
    private final int nodes;
    private final int width;
    /** [kind][cpuNode + 1][memNode + 1], flattened; index 0 of a node axis is "unknown". */
    private final PerThreadCounters bytes;

    public DataTouches(NodeLocator locator) {
        this.locator = locator;
        this.nodes = locator.nodes();
        this.width = nodes + 1;
        this.bytes = new PerThreadCounters(KINDS.length * width * width);
    }

    /** A recorder for tests and for units nobody measures. */
    public static DataTouches singleNode() {
        return new DataTouches(NodeLocator.SINGLE_NODE);
    }

    public int nodes() {
        return nodes;
    }

    /** {@code length} bytes of memory on {@code memNode} touched by the calling thread. */
    public void touched(Kind kind, int memNode, long length) {
        if (length > 0) {
            add(kind, locator.currentCpuNode(), memNode, length);
        }
    }

    /** {@code length} bytes of {@code buf} from {@code index} touched by the calling thread; each page by its node. */
    public void touched(Kind kind, ByteBuf buf, int index, int length) {
        if (length <= 0) {
            return;
        }
        int cpu = locator.currentCpuNode();
        if (nodes == 1) {
            add(kind, cpu, 0, length);
            return;
        }
        record(kind, cpu, buf, index, length);
    }

    private void record(Kind kind, int cpu, ByteBuf buf, int index, int length) {
        if (buf instanceof CompositeByteBuf c) {
            int end = index + length;
            int i = c.toComponentIndex(index);
            int pos = index;
            while (pos < end) {
                int start = c.toByteIndex(i);
                ByteBuf part = c.internalComponent(i);
                int n = Math.min(end, start + part.readableBytes()) - pos;
                record(kind, cpu, part, part.readerIndex() + (pos - start), n);
                pos += n;
                i++;
            }
            return;
        }
        if (!buf.hasMemoryAddress()) {
            add(kind, cpu, -1, length);
            return;
        }
        recordRange(kind, cpu, buf.memoryAddress() + index, length);
    }

    /** {@code length} bytes of native memory from {@code address} touched by the calling thread. */
    public void touched(Kind kind, long address, long length) {
        touchedBy(kind, locator.currentCpuNode(), address, length);
    }

    /** {@code length} bytes of native memory from {@code address} touched by a device (an HCA) on {@code node}. */
    public void touchedBy(Kind kind, int node, long address, long length) {
        if (length <= 0) {
            return;
        }
        if (nodes == 1) {
            add(kind, node, 0, length);
            return;
        }
        recordRange(kind, node, address, length);
    }

    private void recordRange(Kind kind, int cpu, long address, long length) {
        long end = address + length;
        long runStart = address;
        int runNode = locator.memoryNode(address);
        for (long page = (address & -PAGE) + PAGE; page < end; page += PAGE) {
            int node = locator.memoryNode(page);
            if (node != runNode) {
                add(kind, cpu, runNode, page - runStart);
                runStart = page;
                runNode = node;
            }
        }
        add(kind, cpu, runNode, end - runStart);
    }

    private void add(Kind kind, int cpu, int mem, long length) {
        bytes.add(index(kind, cpu, mem), length);
    }

    private int index(Kind kind, int cpu, int mem) {
        return (kind.ordinal() * width + clamp(cpu) + 1) * width + clamp(mem) + 1;
    }

    private int clamp(int node) {
        return node < 0 || node >= nodes ? -1 : node;
    }

    /** Bytes touched so far by {@code kind} from a CPU of {@code cpuNode} in memory of {@code memNode} (-1: unknown). */
    public long bytes(Kind kind, int cpuNode, int memNode) {
        return bytes.get(index(kind, cpuNode, memNode));
    }

    /** Bytes of every kind touched by a CPU on the same node as the memory. */
    public long localBytes() {
        long sum = 0;
        for (Kind k : KINDS) {
            for (int n = 0; n < nodes; n++) {
                sum += bytes(k, n, n);
            }
        }
        return sum;
    }

    /** Bytes of every kind. */
    public long totalBytes() {
        long sum = 0;
        for (long b : bytes.snapshot()) {
            sum += b;
        }
        return sum;
    }
}
