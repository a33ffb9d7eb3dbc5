package io.numaiscsi.iser;

import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Memory other than the connection slabs that the portal registered once at start (every NUMA node's cache
 * regions), so data-in can be RDMA-Written straight out of it: {@link #find} maps a CPU address range to its region.
 * Immutable after start; lookups allocate nothing.
 */
public final class RegisteredMemory implements AutoCloseable {
    private static final RegisteredMemory NONE = new RegisteredMemory(null, new MemoryRegion[0], new long[0]);

    private final Verbs verbs;
    private final MemoryRegion[] regions;
    private final long[] starts;

    private RegisteredMemory(Verbs verbs, MemoryRegion[] regions, long[] starts) {
        this.verbs = verbs;
        this.regions = regions;
        this.starts = starts;
    }

    public static RegisteredMemory none() {
        return NONE;
    }

    /** Registers each direct buffer; throws IllegalStateException (registering nothing) when the device refuses one. */
    public static RegisteredMemory register(Verbs verbs, List<ByteBuffer> buffers) {
        List<MemoryRegion> done = new ArrayList<>();
        for (ByteBuffer b : buffers) {
            MemoryRegion r = verbs.register(b);
            if (r == null) {
                done.forEach(verbs::deregister);
                throw new IllegalStateException("the RDMA device refused to register " + b.capacity() + " bytes of "
                        + "cache memory (" + done.size() + " of " + buffers.size() + " regions registered)");
            }
            done.add(r);
        }
        MemoryRegion[] sorted = done.toArray(new MemoryRegion[0]);
        Arrays.sort(sorted, Comparator.comparingLong(r -> cpuAddress(r.buffer())));
        long[] starts = new long[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            starts[i] = cpuAddress(sorted[i].buffer());
        }
        return new RegisteredMemory(verbs, sorted, starts);
    }

    static long cpuAddress(ByteBuffer direct) {
        return PlatformDependent.directBufferAddress(direct);
    }

    /** The region holding all of {@code [address, address + length)}, or null. */
    MemoryRegion find(long address, int length) {
        int i = Arrays.binarySearch(starts, address);
        if (i < 0) {
            i = -i - 2; // the last region starting below the address
        }
        if (i < 0) {
            return null;
        }
        MemoryRegion r = regions[i];
        return address + length <= starts[i] + r.length() ? r : null;
    }

    /** Byte offset of {@code address} in {@code region} (one {@link #find} returned). */
    int offsetIn(MemoryRegion region, long address) {
        return (int) (address - cpuAddress(region.buffer()));
    }

    public int regions() {
        return regions.length;
    }

    public long bytes() {
        long n = 0;
        for (MemoryRegion r : regions) {
            n += r.length();
        }
        return n;
    }

    /** Deregisters everything; the buffers stay with their owner. */
    @Override
    public void close() {
        for (MemoryRegion r : regions) {
            verbs.deregister(r);
        }
    }
}
