package io.numaiscsi.cache;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;

/**
 * Single-flight fills and invalidation. A miss maps a slot as FILLING (in {@link CachePartition#read}) and issues one
 * backing read for it here; every request that misses on the block meanwhile waits on the slot's {@link SlotIo} and is
 * told when it is ready. After a backing write or unmap, the cached copies of the range are invalidated.
 */
final class FillCoordinator {
    private final BlockDevice backing;
    private final CacheSpace space;

    FillCoordinator(BlockDevice backing, CacheSpace space) {
        this.backing = backing;
        this.space = space;
    }

    /** Reads the granules recorded on the slot's {@link SlotIo} into slot {@code s}, which the caller mapped as FILLING. */
    void issueFill(CachePartition p, int s, long block) {
        SlotIo io = p.io(s);
        io.writingBack = false;
        readGranules(p, s, block, io.fillFrom, io.fillTo, io);
    }

    /** Reads granules [g0, g1) of {@code block} from the backing device into slot {@code s}, at their place in it. */
    void readGranules(CachePartition p, int s, long block, int g0, int g1, IoCompletion done) {
        int from = g0 * space.granule;
        int to = Math.min(g1 * space.granule, space.blockBytes(block));
        ByteBuf view = p.view(s);
        view.setIndex(from, from);
        backing.read(block * space.blockSize + from, to - from, view, done);
    }

    void fillDone(SlotIo io, IoStatus st) {
        int n = io.partition.fillDone(io.slot, st == IoStatus.OK);
        for (int i = 0; i < n; i++) {
            io.waiter(i).blockReady(st);
        }
    }

    /** Wakes every parked request, for a slot or for dirty room (after a write-back batch that cleaned blocks). */
    void wakeAllParked() {
        for (CachePartition p : space.partitions) {
            // each under the partition's lock: a request parked a moment ago is seen
            p.wakeForDirtyRoom();
            p.wakeParked();
        }
    }

    /**
     * After a write-through write or an unmap reached the backing device: the cached copies of the range go, block by
     * block ({@link CachePartition#invalidate}).
     */
    void invalidate(long offset, long length, boolean unmap) {
        if (length == 0) {
            return;
        }
        int blockSize = space.blockSize;
        long first = offset / blockSize;
        long last = (offset + length - 1) / blockSize;
        for (long block = first; block <= last; block++) {
            long blockStart = block * blockSize;
            long start = Math.max(offset, blockStart);
            long end = Math.min(offset + length, blockStart + blockSize);
            boolean whole = start == blockStart && end - start == space.blockBytes(block);
            space.partitionOf(block)
                    .invalidate(block, (int) (start - blockStart), (int) (end - blockStart), whole, unmap);
        }
    }
}
