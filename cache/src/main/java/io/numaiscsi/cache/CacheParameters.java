package io.numaiscsi.cache;

import io.numaiscsi.blockdev.WritePolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * The shape of one cache: per-node region size, cache block size (4 KiB..1 MiB, a power of two),
 * partitions per node, neighbouring blocks per partition group, the routing threshold and the
 * write policy; under write-back, the dirty ratio (0 < r < 1 of the cache) above which a background batch starts
 * and the age after which a dirty block is written back.
 */
public record CacheParameters(
        long sizePerNode,
        int blockSize,
        int partitionsPerNode,
        int neighbours,
        int routeThreshold,
        WritePolicy writePolicy,
        double dirtyRatio,
        Duration dirtyExpire) {
    public static final double DEFAULT_DIRTY_RATIO = 0.2;
    public static final Duration DEFAULT_DIRTY_EXPIRE = Duration.ofSeconds(5);

    public static final int MIN_BLOCK = 4096;
    public static final int MAX_BLOCK = 1 << 20;

    public CacheParameters {
        Objects.requireNonNull(writePolicy, "writePolicy");
        Objects.requireNonNull(dirtyExpire, "dirtyExpire");
        if (!(dirtyRatio > 0 && dirtyRatio < 1)) {
            throw new IllegalArgumentException("dirty ratio must be in (0, 1): " + dirtyRatio);
        }
        if (dirtyExpire.isNegative() || dirtyExpire.isZero()) {
            throw new IllegalArgumentException("dirty expire must be positive: " + dirtyExpire);
        }
        if (blockSize < MIN_BLOCK || blockSize > MAX_BLOCK || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two in 4K..1M: " + blockSize);
        }
        if (partitionsPerNode < 1 || partitionsPerNode > 256) {
            throw new IllegalArgumentException("partitions per node must be 1..256: " + partitionsPerNode);
        }
        if (neighbours < 1 || neighbours > 64) {
            throw new IllegalArgumentException("neighbours must be 1..64: " + neighbours);
        }
        if (routeThreshold < 0) {
            throw new IllegalArgumentException("route threshold must be >= 0: " + routeThreshold);
        }
        long perPartition = sizePerNode / partitionsPerNode;
        if (perPartition / blockSize < 2) {
            throw new IllegalArgumentException("size per node " + sizePerNode + " gives fewer than 2 blocks of "
                    + blockSize + " per partition (" + partitionsPerNode + " partitions)");
        }
        if (perPartition > Integer.MAX_VALUE - 4096) {
            throw new IllegalArgumentException("one partition holds at most 2 GiB; raise partitions per node");
        }
    }

    /** With the default dirty ratio and expiry. */
    public CacheParameters(
            long sizePerNode,
            int blockSize,
            int partitionsPerNode,
            int neighbours,
            int routeThreshold,
            WritePolicy writePolicy) {
        this(
                sizePerNode,
                blockSize,
                partitionsPerNode,
                neighbours,
                routeThreshold,
                writePolicy,
                DEFAULT_DIRTY_RATIO,
                DEFAULT_DIRTY_EXPIRE);
    }

    /** The study's defaults: 512 KiB blocks, 16 partitions per node, groups of 4, route at 64 KiB, write-through. */
    public static CacheParameters defaults(long sizePerNode) {
        return new CacheParameters(sizePerNode, 512 * 1024, 16, 4, 64 * 1024, WritePolicy.WRITE_THROUGH);
    }

    /** Cache blocks per partition. */
    public int slotsPerPartition() {
        return (int) (sizePerNode / partitionsPerNode / blockSize);
    }
}
