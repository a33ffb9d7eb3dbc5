package io.numaiscsi.numa;

import com.kenai.jffi.MemoryIO;
import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Off-heap memory bound to a node: {@code numa_alloc_onnode} (mmap + mbind inside libnuma) exposed
 * as a direct ByteBuffer (JNI NewDirectByteBuffer through jffi), pre-faulted so every page is placed
 * on its node at allocation, not at first use on the data path. Without libnuma, or with a pretend
 * topology, it falls back to {@code ByteBuffer.allocateDirect} and says so once. Buffers are
 * 4 KiB-aligned (O_DIRECT) and live until {@link #free} or {@link #close}.
 */
public final class NodeMemory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeMemory.class);
    public static final int PAGE = 4096;

    private final NumaTopology topology;
    private final LibNuma libnuma;
    private final IdentityHashMap<ByteBuffer, long[]> bound = new IdentityHashMap<>();

    private NodeMemory(NumaTopology topology, LibNuma libnuma) {
        this.topology = topology;
        this.libnuma = libnuma;
    }

    /** Binds memory when the topology is real and libnuma is present; otherwise plain direct memory. */
    public static NodeMemory open(NumaTopology topology) {
        if (topology.isPretend()) {
            LOG.info("pretend NUMA topology: cache memory is not bound to nodes (plain direct buffers)");
            return new NodeMemory(topology, null);
        }
        LibNuma lib = LibNuma.load();
        if (lib == null) {
            LOG.info("libnuma unavailable: cache memory is not bound to nodes (plain direct buffers)");
        }
        return new NodeMemory(topology, lib);
    }

    /** true when allocations are really bound to their node. */
    public boolean bindsMemory() {
        return libnuma != null;
    }

    /** {@code bytes} (rounded up to a page) of zeroed memory on node {@code nodeIndex}; page-aligned. */
    public synchronized ByteBuffer allocate(int nodeIndex, int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes must be positive: " + bytes);
        }
        NumaNode node = topology.node(nodeIndex);
        long size = ((long) bytes + PAGE - 1) & -PAGE;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("one buffer holds at most 2 GiB - 4 KiB: " + bytes);
        }
        if (libnuma != null) {
            long address = libnuma.numa_alloc_onnode(size, node.osNode());
            if (address != 0) {
                ByteBuffer bb = MemoryIO.getInstance().newDirectByteBuffer(address, (int) size);
                for (int i = 0; i < size; i += PAGE) {
                    bb.put(i, (byte) 0); // fault each page in now, on its node
                }
                bound.put(bb, new long[] {address, size});
                return bb;
            }
            LOG.warn(
                    "numa_alloc_onnode({} bytes, node {}) failed; falling back to unbound memory", size, node.osNode());
        }
        // one page more than asked, so a page boundary lies within; exactly the rounded size from it (when the
        // allocation is itself page-aligned the aligned slice would otherwise keep the extra page)
        return ByteBuffer.allocateDirect((int) size + PAGE).alignedSlice(PAGE).slice(0, (int) size);
    }

    /** Returns node-bound memory to the kernel; unbound buffers are left to the garbage collector. */
    public synchronized void free(ByteBuffer buffer) {
        long[] a = bound.remove(buffer);
        if (a != null) {
            libnuma.numa_free(a[0], a[1]);
        }
    }

    /**
     * The OS node the first page of {@code buffer} resides on (move_pages), or -1 when unknown (no
     * libnuma, or the page is not faulted in). For tests and the daemon's start-up evidence.
     */
    public int residentOsNode(ByteBuffer buffer) {
        if (libnuma == null || !buffer.isDirect()) {
            return -1;
        }
        long address = MemoryIO.getInstance().getDirectBufferAddress(buffer);
        Runtime rt = Runtime.getRuntime(libnuma);
        Pointer pages = Memory.allocateDirect(rt, 8);
        Pointer status = Memory.allocateDirect(rt, 4);
        pages.putLong(0, address);
        status.putInt(0, -1);
        long r = libnuma.numa_move_pages(0, 1, pages, null, status, 0);
        int s = status.getInt(0);
        return r == 0 && s >= 0 ? s : -1;
    }

    /** Frees every node-bound buffer still allocated; their ByteBuffers must not be used afterwards. */
    @Override
    public synchronized void close() {
        for (long[] a : bound.values()) {
            libnuma.numa_free(a[0], a[1]);
        }
        bound.clear();
    }
}
