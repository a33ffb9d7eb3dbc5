package io.numaiscsi.iser;

import io.netty.buffer.ByteBuf;

/**
 * Data-in buffers RDMA-Written in place from registered memory, each held (retained) until the last write of it
 * completes or is dropped; a hold is a slot index the last write request carries. Queue depth slots, taken and given
 * back without allocating. The connection's thread only.
 */
final class HeldBuffers {
    private final ByteBuf[] held;
    private final int[] free;
    private int freeCount;

    HeldBuffers(int slots) {
        held = new ByteBuf[slots];
        free = new int[slots];
        for (int i = 0; i < slots; i++) {
            free[freeCount++] = i;
        }
    }

    boolean available() {
        return freeCount > 0;
    }

    /** Retains {@code buffer} in a free slot (the caller checked {@link #available()}); returns the slot. */
    int hold(ByteBuf buffer) {
        int slot = free[--freeCount];
        held[slot] = buffer.retain();
        return slot;
    }

    void release(int slot) {
        held[slot].release();
        held[slot] = null;
        free[freeCount++] = slot;
    }
}
