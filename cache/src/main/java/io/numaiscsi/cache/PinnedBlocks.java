package io.numaiscsi.cache;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * A read served in place: a composite buffer over slices of pinned cache blocks. The blocks stay pinned, so no
 * eviction or refill reuses their memory, until the buffer is released (for iSER, when the RDMA Write from them has
 * completed). Writes never change a pinned block: write-back writes go to a fresh copy and write-through writes only
 * drop the cached copy.
 */
final class PinnedBlocks extends CompositeByteBuf {
    private final CachePartition[] partitions;
    private final int[] slots;
    private int count;

    PinnedBlocks(ByteBufAllocator alloc, int blocks) {
        super(alloc, true, Math.max(blocks, 2));
        this.partitions = new CachePartition[blocks];
        this.slots = new int[blocks];
    }

    /** Appends {@code length} bytes of pinned slot {@code s} from {@code inBlock}; the pin now belongs to this buffer. */
    void add(CachePartition p, int s, int inBlock, int length) {
        partitions[count] = p;
        slots[count++] = s;
        addComponent(true, p.view(s).retainedSlice(inBlock, length));
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        for (int i = 0; i < count; i++) {
            partitions[i].unpin(slots[i]);
        }
        count = 0;
    }
}
