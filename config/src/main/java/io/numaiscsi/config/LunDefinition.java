package io.numaiscsi.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One logical unit of a target.
 *
 * @param id        LUN (0..16383), unique within its target
 * @param backing   where the blocks live
 * @param path      backing file, absolute (already resolved against the data directory); null for RAM
 * @param sizeBytes capacity in bytes, a multiple of {@code blockSize}
 * @param blockSize logical block size, 512 or 4096
 * @param serial    unit serial number, or null to derive one ({@link TargetDefinition#serialOf})
 */
public record LunDefinition(int id, BackingType backing, Path path, long sizeBytes, int blockSize, String serial) {

    public LunDefinition {
        Objects.requireNonNull(backing, "backing");
    }

    /** Number of logical blocks. */
    public long blockCount() {
        return sizeBytes / blockSize;
    }
}
