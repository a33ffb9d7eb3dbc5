package io.numaiscsi.iser;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * In-process RDMA for tests: memory regions with keys and addresses (absolute, or zero-based on request), and
 * pairs of connected {@link FakeEndpoint}s that move bytes between registered buffers. Public for target-daemon's
 * tests (this module's test jar).
 */
public final class FakeFabric implements Verbs {
    private final Map<Integer, MemoryRegion> byRkey = new HashMap<>();
    private int nextKey = 0x1000;
    private long nextAddress = 0x7f00_0000_0000L;
    int receiverNotReady;

    @Override
    public MemoryRegion register(ByteBuffer directBuffer) {
        MemoryRegion r = new MemoryRegion(directBuffer, nextAddress, nextKey, nextKey + 1, 0);
        nextKey += 2;
        nextAddress += ((long) directBuffer.capacity() + 0xffff) & ~0xffffL;
        byRkey.put(r.rkey(), r);
        return r;
    }

    /** A region the initiator advertises with zero-based virtual addresses: byte 0 is tagged offset 0. */
    MemoryRegion registerZeroBased(ByteBuffer directBuffer) {
        MemoryRegion r = new MemoryRegion(directBuffer, 0, nextKey, nextKey + 1, 0);
        nextKey += 2;
        byRkey.put(r.rkey(), r);
        return r;
    }

    @Override
    public void deregister(MemoryRegion region) {
        byRkey.remove(region.rkey());
    }

    /** The byte offset of {@code [address, address + length)} in the region of {@code rkey}, or -1. */
    int resolve(int rkey, long address, int length, MemoryRegion[] found) {
        MemoryRegion r = byRkey.get(rkey);
        if (r == null) {
            return -1;
        }
        long offset = address - r.address();
        if (offset < 0 || offset + length > r.length()) {
            return -1;
        }
        found[0] = r;
        return (int) offset;
    }

    /** A connected pair: [0] the target's side, [1] the initiator's. */
    public FakeEndpoint[] connect() {
        FakeEndpoint a = new FakeEndpoint(this, "10.0.2.15:3260");
        FakeEndpoint b = new FakeEndpoint(this, "10.0.2.15:40000");
        a.peer = b;
        b.peer = a;
        return new FakeEndpoint[] {a, b};
    }
}
