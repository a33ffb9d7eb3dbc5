package io.numaiscsi.cache;

import io.numaiscsi.blockdev.BlockDevice;

/**
 * Mapping (GET LBA STATUS) as seen through a cache: the backing device's, except that under write-back a dirty cache
 * block counts as mapped (it is not on the backing device yet), and an unmapped run of the backing device ends where
 * a dirty block begins.
 */
final class CacheMapping {
    /** Cache blocks looked at per call for dirty blocks inside an unmapped run. */
    private static final int SCAN_BLOCKS = 4096;

    private final BlockDevice backing;
    private final CacheSpace space;
    private final int blockSize;
    /** Null under write-through. */
    private final WriteBackScheduler writeBacks;

    CacheMapping(BlockDevice backing, CacheSpace space, WriteBackScheduler writeBacks) {
        this.backing = backing;
        this.space = space;
        this.blockSize = space.blockSize;
        this.writeBacks = writeBacks;
    }

    boolean isMapped(long offset) {
        return dirtyInCache(offset) || backing.isMapped(offset);
    }

    long nextMappingChange(long offset) {
        if (dirtyInCache(offset)) {
            long blockEnd = (offset / blockSize + 1) * blockSize;
            return Math.min(space.size, blockEnd); // mapped at least to the end of this dirty block
        }
        long backingChange = backing.nextMappingChange(offset);
        if (writeBacks != null && !backing.isMapped(offset)) {
            long first = offset / blockSize + 1;
            for (long b = first; b * blockSize < backingChange; b++) {
                if (dirtyInCache(b * blockSize)) {
                    return b * blockSize;
                }
                if (b - first >= SCAN_BLOCKS) {
                    return (b + 1)
                            * blockSize; // a shorter extent is still correct; the initiator asks again from there
                }
            }
        }
        return backingChange;
    }

    private boolean dirtyInCache(long offset) {
        return writeBacks != null && writeBacks.isDirty(offset);
    }
}
