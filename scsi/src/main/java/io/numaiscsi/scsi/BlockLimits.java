package io.numaiscsi.scsi;

import io.numaiscsi.blockdev.BlockDevice;

/** The limits advertised in the Block Limits VPD page (0xB0) and enforced by the decoder. */
final class BlockLimits {
    private static final int MAX_TRANSFER_BYTES = 32 << 20;
    private static final int OPTIMAL_TRANSFER_BYTES = 1 << 20;
    private static final long MAX_UNMAP_BYTES = 1L << 30;
    /** libiscsi considers more than 2^20 blocks per UNMAP "insanely big"; initiators split larger ranges. */
    private static final long MAX_UNMAP_BLOCKS = 1 << 20;
    /**
     * One WRITE SAME does at most what one WRITE may: a command's work stays bounded (a 1 GiB pattern write took
     * longer than initiators wait), initiators split larger ranges by this field, and an initiator that assumes it can
     * also WRITE or READ the whole range in one command (libiscsi's WriteSame16.Unmap does) stays within the limits.
     */
    private static final long MAX_WRITE_SAME_BYTES = MAX_TRANSFER_BYTES;

    private static final int MAX_ATOMIC_BYTES = 1 << 20;

    final int maxTransferBlocks;
    final int optimalTransferBlocks;
    /** Logical blocks per physical block; also the optimal transfer and unmap granularity. */
    final int logicalPerPhysical;

    final int logicalPerPhysicalExponent;
    final long maxUnmapBlocks;
    final int maxUnmapDescriptors = 64;
    final long maxWriteSameBlocks;
    final int maxCompareAndWriteBlocks = 64;
    /**
     * WRITE ATOMIC: up to this many blocks go to the device as one request while the unit runs no other write of the
     * range (see {@link SbcCommands#writeAtomic}); 1 MiB, within the maximum transfer length. Any alignment and
     * granularity (0); a boundary (the write split into atomic pieces) may be as large as the whole write.
     */
    final int maxAtomicTransferBlocks;

    final int maxAtomicTransferWithBoundaryBlocks;
    final int maxAtomicBoundaryBlocks;
    final int atomicAlignment = 0;
    final int atomicGranularity = 0;

    BlockLimits(int blockSize, int physicalBlockSize) {
        maxTransferBlocks = MAX_TRANSFER_BYTES / blockSize;
        optimalTransferBlocks = OPTIMAL_TRANSFER_BYTES / blockSize;
        logicalPerPhysical = Math.max(1, physicalBlockSize / blockSize);
        logicalPerPhysicalExponent = Integer.numberOfTrailingZeros(Integer.highestOneBit(logicalPerPhysical));
        maxUnmapBlocks = Math.min(MAX_UNMAP_BLOCKS, MAX_UNMAP_BYTES / blockSize);
        maxWriteSameBlocks = MAX_WRITE_SAME_BYTES / blockSize;
        maxAtomicTransferBlocks = Math.min(MAX_ATOMIC_BYTES / blockSize, 0xFFFF); // the CDB's length field is 16 bits
        maxAtomicTransferWithBoundaryBlocks = maxAtomicTransferBlocks;
        maxAtomicBoundaryBlocks = maxAtomicTransferBlocks;
    }

    /**
     * The limits of a unit on {@code device} that reports {@code configured} bytes as its physical block, or the
     * device's own when 0.
     */
    static BlockLimits of(BlockDevice device, int configured) {
        return new BlockLimits(device.blockSize(), reportedPhysicalBlockSize(device, configured));
    }

    private static int reportedPhysicalBlockSize(BlockDevice device, int configured) {
        int own = device.physicalBlockSize();
        if (configured == 0) {
            return own;
        }
        if (Integer.bitCount(configured) != 1 || configured < device.blockSize()) {
            throw new IllegalArgumentException(configured + " bytes is not a power-of-two multiple of the block size ("
                    + device.blockSize() + " bytes)");
        }
        if (configured < own || configured % own != 0) {
            throw new IllegalArgumentException(
                    configured + " bytes is not a multiple of the store's own physical block (" + own
                            + " bytes): initiators would write parts of it");
        }
        return configured;
    }
}
