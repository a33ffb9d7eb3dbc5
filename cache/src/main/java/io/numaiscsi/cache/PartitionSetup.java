package io.numaiscsi.cache;

/**
 * What one partition is made of: its node, the pool share its slots' memory comes from, up to {@code slots} blocks
 * of {@code blockSize} bytes tracked in granules of {@code granule} bytes, the counters it adds to, where its slots'
 * backing I/O reports, and the device's dirty account.
 */
record PartitionSetup(
        int node,
        PoolShare share,
        int slots,
        int blockSize,
        int granule,
        CacheCounters counters,
        SlotIo.Sink slotSink,
        DirtyAccount dirty) {}
