package io.numaiscsi.blockdev.backstore;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Where a RAM disk keeps its chunks. {@link #HEAP} is garbage-collected and gives unmapped chunks back; the daemon's
 * node-bound memory keeps each chunk until the disk closes, because a reader may still be copying from it.
 */
public interface ChunkMemory {
    ChunkMemory HEAP = new ChunkMemory() {
        @Override
        public ByteBuf allocate(int bytes) {
            return Unpooled.wrappedBuffer(new byte[bytes]);
        }

        @Override
        public boolean reclaimable() {
            return true;
        }

        @Override
        public void free(ByteBuf chunk) {}
    };

    /** {@code bytes} of zeroed memory. */
    ByteBuf allocate(int bytes);

    /** Whether a chunk no block maps is dropped (and its memory given back) rather than kept zeroed. */
    boolean reclaimable();

    /** Called once per chunk when the disk closes (and for dropped chunks when reclaimable). */
    void free(ByteBuf chunk);
}
