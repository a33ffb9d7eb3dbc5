package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One logical unit of a target.
 *
 * @param id        LUN (0..16383), unique within its target
 * @param backing   where the blocks live
 * @param path      backing file, absolute (already resolved against the data directory), or the block device;
 *                  null for RAM
 * @param sizeBytes capacity in bytes, a multiple of {@code blockSize}; for a block device
 *                  {@link #FROM_DEVICE} (all of it) or at most the device's size
 * @param blockSize logical block size, 512 or 4096; for a block device {@link #FROM_DEVICE} (its logical block size)
 * @param serial    unit serial number, or null to derive one ({@link TargetDefinition#serialOf})
 * @param faults    test/debug fault injection ({@link FaultInjection#NONE} normally)
 * @param physicalBlockSize the physical block size reported to initiators (LBPPB), a power-of-two multiple of the
 *                  block size; {@link #FROM_DEVICE} reports the store's own (a device's, else the block size)
 * @param readOnly  write-protected: initiators may read it, every write is refused (DATA PROTECT)
 * @param softThreshold thin provisioning soft threshold in percent of the LUN's size (1..99), {@link #NO_THRESHOLD}
 *                  for none; file and RAM stores only
 * @param rbd       the RBD image of a {@code backing: rbd} LUN (whose size is the image's), else null
 */
public record LunDefinition(
        int id,
        BackingType backing,
        Path path,
        long sizeBytes,
        int blockSize,
        String serial,
        FaultInjection faults,
        int physicalBlockSize,
        boolean readOnly,
        int softThreshold,
        RbdSource rbd) {

    /** {@code sizeBytes} or {@code blockSize} of a block device LUN that leaves them to the device. */
    public static final int FROM_DEVICE = 0;
    /** {@code softThreshold} of a LUN without one (the default). */
    public static final int NO_THRESHOLD = 0;

    public LunDefinition {
        Objects.requireNonNull(backing, "backing");
        Objects.requireNonNull(faults, "faults");
        if ((backing == BackingType.RBD) != (rbd != null)) {
            throw new IllegalArgumentException("an RBD image goes with backing rbd and only with it");
        }
    }

    /** A writable LUN, not on RBD, without faults or soft threshold, reporting its store's own physical block size. */
    public LunDefinition(int id, BackingType backing, Path path, long sizeBytes, int blockSize, String serial) {
        this(
                id,
                backing,
                path,
                sizeBytes,
                blockSize,
                serial,
                FaultInjection.NONE,
                FROM_DEVICE,
                false,
                NO_THRESHOLD,
                null);
    }

    /** The same RBD LUN with other image settings. */
    public LunDefinition withRbd(RbdSource newRbd) {
        return copy(path, sizeBytes, newRbd);
    }

    /** The same LUN on another backing file path. */
    public LunDefinition withPath(Path newPath) {
        return copy(newPath, sizeBytes, rbd);
    }

    /**
     * The same LUN grown to {@code newSizeBytes}, checked as a config file's size (with its messages) and larger than
     * now: a LUN only grows, shrinking would cut off data initiators wrote.
     *
     * @throws IllegalArgumentException the problem, for an administrator
     */
    public LunDefinition grownTo(long newSizeBytes) {
        if (backing == BackingType.BLOCK) {
            throw new IllegalArgumentException("LUN " + id + " is the block device " + path + ", whose size is the "
                    + "device's: grow the device (lvextend, zfs set volsize), then remove the LUN and add it again");
        }
        if (backing == BackingType.RBD) {
            throw new IllegalArgumentException("LUN " + id + " is the RBD image " + rbd.pool() + "/" + rbd.image()
                    + ", whose size is the image's: grow it (rbd resize), then remove the LUN and add it again");
        }
        String misfit = sizeProblem(newSizeBytes, blockSize);
        if (misfit != null) {
            throw new IllegalArgumentException(misfit);
        }
        if (newSizeBytes <= sizeBytes) {
            throw new IllegalArgumentException(newSizeBytes + " bytes is not larger than the LUN's " + sizeBytes
                    + " bytes (a LUN only grows: shrinking would cut off data)");
        }
        return copy(path, newSizeBytes, rbd);
    }

    /** This LUN with another path, size or RBD image (the one copy behind withRbd, withPath and grownTo). */
    private LunDefinition copy(Path newPath, long newSizeBytes, RbdSource newRbd) {
        return new LunDefinition(
                id,
                backing,
                newPath,
                newSizeBytes,
                blockSize,
                serial,
                faults,
                physicalBlockSize,
                readOnly,
                softThreshold,
                newRbd);
    }

    /** What is wrong with {@code size} for a LUN of {@code blockSize} blocks, as the config file says it; null if fine. */
    static String sizeProblem(long size, int blockSize) {
        if (size <= 0) {
            return "size must be greater than 0";
        }
        return size % blockSize == 0 ? null : size + " bytes is not a multiple of block-size " + blockSize;
    }

    /** Number of logical blocks; not known here for a block device that leaves its size or block size to the device. */
    public long blockCount() {
        if (sizeBytes == FROM_DEVICE || blockSize == FROM_DEVICE) {
            throw new IllegalStateException("LUN " + id + ": the block count is the device's");
        }
        return sizeBytes / blockSize;
    }
}
