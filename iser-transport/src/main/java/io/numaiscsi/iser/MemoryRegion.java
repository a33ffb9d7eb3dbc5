package io.numaiscsi.iser;

import java.nio.ByteBuffer;

/**
 * A registered memory region (ibv_mr): a direct buffer, its local key for our own work requests, its remote key
 * (STag) and the address the device sees. Registered once at start, never per I/O.
 */
public final class MemoryRegion {
    private final ByteBuffer buffer;
    private final long address;
    private final int lkey;
    private final int rkey;
    private final long handle;

    /** {@code handle} is the binding's own pointer (ibv_mr*), 0 for the fake. */
    public MemoryRegion(ByteBuffer buffer, long address, int lkey, int rkey, long handle) {
        this.buffer = buffer;
        this.address = address;
        this.lkey = lkey;
        this.rkey = rkey;
        this.handle = handle;
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    public long address() {
        return address;
    }

    public int lkey() {
        return lkey;
    }

    public int rkey() {
        return rkey;
    }

    public long handle() {
        return handle;
    }

    public int length() {
        return buffer.capacity();
    }
}
