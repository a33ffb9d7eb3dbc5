package io.numaiscsi.iser;

import io.numaiscsi.numa.NodeMemory;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The registered memory of one NUMA node: one buffer from {@link NodeMemory}, registered once at start, cut
 * into equal slabs, one per connection (its receive, send and data chunks). Taking a slab at accept and giving
 * it back at teardown registers nothing. Thread-safe (accept and teardown may run on different threads).
 */
public final class RegisteredSlabs implements AutoCloseable {
    private final Verbs verbs;
    private final MemoryRegion region;
    private final int slabBytes;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private final boolean[] taken;
    private final int slabs;
    private final NodeMemory memory;

    private RegisteredSlabs(Verbs verbs, MemoryRegion region, int slabBytes, int slabs, NodeMemory memory) {
        this.verbs = verbs;
        this.region = region;
        this.slabBytes = slabBytes;
        this.slabs = slabs;
        this.memory = memory;
        this.taken = new boolean[slabs];
        for (int i = 0; i < slabs; i++) {
            free.add(i);
        }
    }

    /** Allocates {@code slabs} connection slabs on {@code node} and registers them; throws when the device refuses. */
    public static RegisteredSlabs allocate(Verbs verbs, NodeMemory memory, int node, IserSettings settings, int slabs) {
        long bytes = settings.connectionBytes();
        long slabBytes = (bytes + NodeMemory.PAGE - 1) & -NodeMemory.PAGE;
        if (slabBytes * slabs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(slabs + " iSER connections of " + slabBytes + " bytes exceed 2 GiB");
        }
        ByteBuffer buffer = memory.allocate(node, (int) (slabBytes * slabs));
        MemoryRegion region = verbs.register(buffer);
        if (region == null) {
            memory.free(buffer);
            throw new IllegalStateException("the RDMA device refused to register " + slabBytes * slabs + " bytes");
        }
        return new RegisteredSlabs(verbs, region, (int) slabBytes, slabs, memory);
    }

    /** A free slab's byte offset in {@link #region()}, or -1 when every slab is in use. */
    public synchronized int take() {
        Integer slab = free.poll();
        if (slab == null) {
            return -1;
        }
        taken[slab] = true;
        return slab * slabBytes;
    }

    public synchronized void give(int offset) {
        int slab = offset / slabBytes;
        if (!taken[slab]) {
            throw new IllegalStateException("slab " + slab + " given back twice");
        }
        taken[slab] = false;
        free.add(slab);
    }

    public synchronized int available() {
        return free.size();
    }

    public int capacity() {
        return slabs;
    }

    public MemoryRegion region() {
        return region;
    }

    @Override
    public void close() {
        verbs.deregister(region);
        if (memory != null) {
            memory.free(region.buffer());
        }
    }
}
