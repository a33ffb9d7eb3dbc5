package io.numaiscsi.config;

import io.numaiscsi.blockdev.WritePolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * The {@code cache:} section.
 *
 * @param mode              off (the LUN's own store, O_DIRECT), page-cache (buffered file I/O baseline) or numa
 * @param sizePerNode       bytes of cache memory per NUMA node, shared by the LUNs homed there; {@link #SIZE_AUTO}: a
 *                          share of the node's free memory, decided at start
 * @param blockSize         cache block, a power of two in 4K..1M
 * @param partitionsPerNode 1..256
 * @param neighbours        neighbouring blocks kept in one partition, 1..64
 * @param routeThreshold    requests smaller than this many bytes are served where they arrive
 * @param writePolicy       write-through or write-back
 * @param zeroCopyMin       reads of at least this many bytes leave over TCP straight from the pinned cache blocks;
 *                          smaller ones are copied where they arrive ({@link #ZERO_COPY_OFF}: every read is copied).
 *                          iSER sends every read from the cache blocks (the NIC reads them, no CPU copy at all).
 * @param dirtyRatio        write-back: the share of a LUN's cache (0 < r < 1) that may be dirty before a background
 *                          write-back batch starts
 * @param dirtyExpire       write-back: a block dirty this long is written back in the background
 * @param backingPageCache  numa: true (the default), file and block-device stores under the cache are read and
 *                          written through the kernel's page cache (buffered; the kernel's write cache, flushed by
 *                          SYNCHRONIZE CACHE and FUA); false, with O_DIRECT. Mode off is always O_DIRECT, page-cache
 *                          always buffered
 */
public record CacheSettings(
        Mode mode,
        long sizePerNode,
        int blockSize,
        int partitionsPerNode,
        int neighbours,
        int routeThreshold,
        WritePolicy writePolicy,
        int zeroCopyMin,
        double dirtyRatio,
        Duration dirtyExpire,
        boolean backingPageCache) {

    /** How LUN data is cached. */
    public enum Mode {
        OFF,
        PAGE_CACHE,
        NUMA
    }

    public static final int ZERO_COPY_OFF = Integer.MAX_VALUE;
    /** {@code size-per-node: auto}. */
    public static final long SIZE_AUTO = 0;

    public static final CacheSettings DEFAULT = new CacheSettings(
            Mode.NUMA,
            SIZE_AUTO,
            512 << 10,
            16,
            4,
            64 << 10,
            WritePolicy.WRITE_THROUGH,
            64 << 10,
            0.2,
            Duration.ofSeconds(5),
            true);

    public CacheSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(writePolicy, "writePolicy");
        Objects.requireNonNull(dirtyExpire, "dirtyExpire");
        if (!(dirtyRatio > 0 && dirtyRatio < 1)) {
            throw new IllegalArgumentException("dirty ratio must be in (0, 1): " + dirtyRatio);
        }
    }

    public boolean autoSize() {
        return sizePerNode == SIZE_AUTO;
    }

    /** Whether file and block-device stores go through the kernel's page cache (else O_DIRECT where aligned). */
    public boolean storesBuffered() {
        return mode == Mode.PAGE_CACHE || (mode == Mode.NUMA && backingPageCache);
    }
}
