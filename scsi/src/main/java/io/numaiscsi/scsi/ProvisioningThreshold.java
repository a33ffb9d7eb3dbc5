package io.numaiscsi.scsi;

import io.numaiscsi.blockdev.MappingResources;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logical block provisioning resources and the soft threshold of one unit (SBC-4 4.7.3.7): the counts of the Logical
 * Block Provisioning log page, the THRESHOLD EXPONENT of VPD page B2h, the threshold descriptors of mode page 1Ch/02h,
 * and the unit attention THIN PROVISIONING SOFT THRESHOLD REACHED when usage crosses the threshold upward.
 *
 * <p>A soft threshold of P percent is reached when the used LBA mapping resources reach P% of the unit's size, or the
 * available ones (what the store can still map for it, at most the unmapped rest of the unit) fall to (100 - P)% of
 * it: the second also catches a file system that fills up below an oversubscribed unit. The condition is reported
 * once per upward crossing, to every I_T nexus that has used the unit, and re-armed when usage falls below again.
 */
final class ProvisioningThreshold {
    private static final Logger LOG = LoggerFactory.getLogger(ProvisioningThreshold.class);
    /** Threshold sets are at least this large, so counts stay readable and a threshold does not flicker per block. */
    static final int MIN_SET_BYTES = 1 << 20;

    static final int RESOURCE_AVAILABLE = 0x01;
    static final int RESOURCE_USED = 0x02;

    private final MappingResources resources;
    private volatile int softPercent;
    /** The threshold was reached and reported; on the unit's thread. */
    private boolean reached;

    /** {@code resources}: null for a store that reports none (fully provisioned): no log page, no thresholds. */
    ProvisioningThreshold(MappingResources resources) {
        this.resources = resources;
    }

    /** Whether the unit reports LBA mapping resources (log page 0Ch, mode page 1Ch/02h, a THRESHOLD EXPONENT). */
    boolean supported() {
        return resources != null;
    }

    boolean freeShared() {
        return resources.freeShared();
    }

    /** 1..99, or 0 for none. Set before the unit serves. */
    void softPercent(int percent) {
        if (percent < 0 || percent > 99) {
            throw new IllegalArgumentException("soft threshold must be 1..99 percent, or 0 for none: " + percent);
        }
        if (percent != 0 && resources == null) {
            throw new IllegalArgumentException(
                    "the store reports no LBA mapping resources (fully provisioned): no threshold");
        }
        softPercent = percent;
    }

    int softPercent() {
        return softPercent;
    }

    /**
     * THRESHOLD EXPONENT: a threshold set of at least {@link #MIN_SET_BYTES}, and large enough that the unit has fewer
     * than 2^32 of them (SBC-4 6.6.6); 0 when resources are not reported.
     */
    int exponent(long blockCount, int blockSize) {
        if (resources == null) {
            return 0;
        }
        int minimum = Integer.numberOfTrailingZeros(MIN_SET_BYTES / blockSize);
        int bitLength = 64 - Long.numberOfLeadingZeros(blockCount);
        return Math.max(minimum, bitLength - 32);
    }

    /** Used threshold in threshold sets: P% of the unit's blocks, rounded up. */
    long usedThresholdSets(long blockCount, int exponent) {
        return ceilDiv(percentOf(blockCount, softPercent), 1L << exponent);
    }

    /** Available threshold in threshold sets: (100 - P)% of the unit's blocks, rounded down. */
    long availableThresholdSets(long blockCount, int exponent) {
        return percentOf(blockCount, 100 - softPercent) >>> exponent;
    }

    /** Used and available blocks now: {used, available}, each capped by the unit's size. */
    long[] sample(long blockCount, int blockSize) throws IOException {
        long size = blockCount * blockSize;
        long used = Math.min(Math.max(0, resources.usedBytes()), size);
        long available = Math.min(Math.max(0, resources.freeBytes()), size - used);
        return new long[] {ceilDiv(used, blockSize), available / blockSize};
    }

    /**
     * Applies a sample, on the unit's thread: reports the threshold reached (the unit attention to every known nexus and
     * one WARN line) or re-arms it. Returns whether it was reported now.
     */
    boolean apply(long usedBlocks, long availableBlocks, LogicalUnit lu) {
        int percent = softPercent;
        if (percent == 0) {
            return false;
        }
        long blockCount = lu.blockCount;
        int e = exponent(blockCount, lu.blockSize);
        boolean over = usedBlocks >= usedThresholdSets(blockCount, e) << e
                || availableBlocks <= availableThresholdSets(blockCount, e) << e;
        if (over && !reached) {
            reached = true;
            lu.unitAttentions.postToAllExcept(SenseReason.THIN_PROVISIONING_SOFT_THRESHOLD_REACHED, null);
            LOG.warn(
                    "LUN {} (serial {}): thin provisioning soft threshold ({}%) reached: {} bytes used, {} bytes available"
                            + " of {} (initiators get THIN PROVISIONING SOFT THRESHOLD REACHED)",
                    lu.lun,
                    lu.identity.serial(),
                    percent,
                    usedBlocks * lu.blockSize,
                    availableBlocks * lu.blockSize,
                    blockCount * lu.blockSize);
            return true;
        }
        if (!over && reached) {
            reached = false;
            LOG.info(
                    "LUN {} (serial {}): thin provisioning usage below the soft threshold ({}%) again; re-armed",
                    lu.lun, lu.identity.serial(), percent);
        }
        return false;
    }

    private static long percentOf(long blocks, int percent) {
        return blocks / 100 * percent + blocks % 100 * percent / 100;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
