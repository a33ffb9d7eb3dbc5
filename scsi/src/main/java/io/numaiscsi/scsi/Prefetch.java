package io.numaiscsi.scsi;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;

/**
 * PRE-FETCH (10) and (16) (SBC-3): brings the range into the LUN's cache. CONDITION MET when the whole range is there
 * now; GOOD when the device has no cache of its own, or when the range is larger than one PRE-FETCH may bring in
 * ({@link BlockDevice#prefetchLimit()}), in which case as much as fits is read, from the start of the range. With
 * IMMED the status (CONDITION MET if the range fits) is returned at once and the blocks are read behind it.
 */
final class Prefetch {
    private static final int IMMED = 0x02;
    private static final IoCompletion UNWATCHED = status -> {};

    private Prefetch() {}

    static void start(ScsiTask t) {
        LogicalUnit lu = t.unit;
        BlockDevice device = lu.device;
        long blocks = t.blocks == 0 ? device.blockCount() - t.lba : t.blocks; // 0: to the end of the medium
        long bytes = blocks * lu.blockSize;
        long limit = device.prefetchLimit();
        long length = Math.min(bytes, limit - limit % lu.blockSize);
        boolean fits = limit > 0 && bytes <= limit;
        if (length <= 0) {
            t.completeGood();
            return;
        }
        long offset = t.lba * lu.blockSize;
        if ((t.cdb[1] & IMMED) != 0) {
            device.prefetch(offset, length, UNWATCHED);
            finish(t, fits);
            return;
        }
        t.continuation = fits ? SbcContinuation.PREFETCH_WHOLE_RANGE : SbcContinuation.PREFETCH_PART_OF_RANGE;
        device.prefetch(offset, length, t.io);
    }

    /** The blocks are in the cache: CONDITION MET if they are the whole range. */
    static void finish(ScsiTask t, boolean wholeRange) {
        if (wholeRange) {
            t.completeConditionMet();
        } else {
            t.completeGood();
        }
    }
}
