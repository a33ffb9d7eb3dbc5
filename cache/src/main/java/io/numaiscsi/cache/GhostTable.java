package io.numaiscsi.cache;

/**
 * Pieces of blocks recently read through without taking a slot, remembered so that reading the same bytes again soon
 * after is admitted. "The same bytes": the new piece's granules overlap the ones read through (a neighbour elsewhere
 * in the block is no reuse: with a 512 KiB block and 4 KiB random reads over a LUN larger than the cache, block-level
 * reuse admitted a tenth of the misses as sub-block fills that almost never hit). "Soon" is a reuse distance: at
 * most {@code window} read-throughs later (about the cache's slot count: a piece coming back later than that would
 * have been evicted again before its next use, so filling it never pays, as for a scan larger than the cache).
 * Direct mapped by block hash, one piece per entry; a newer piece overwrites an older one. Updates are racy on
 * purpose: a lost or torn entry only changes whether one miss is admitted, never which bytes a read returns.
 */
final class GhostTable {
    private static final int GRANULE_BITS = 10; // granule numbers up to 1023 (a 1 MiB block has 256 of 4 KiB)
    private static final long GRANULE_MASK = (1L << GRANULE_BITS) - 1;
    private static final int REUSE_SHIFT = 2 * GRANULE_BITS;
    private static final long REUSE_MASK = 3;
    private static final int CLOCK_SHIFT = REUSE_SHIFT + 2;

    private final long[] blocks;
    /** Per entry: the read-through's clock, its reuse count (0-3), then its first granule and its end granule. */
    private final long[] stamps;

    private final int shift;
    private final long window;
    /** Read-throughs so far (racy). */
    private long clock;

    /** {@code size} is rounded up to a power of two. */
    GhostTable(int size, long window) {
        int n = Integer.highestOneBit(Math.max(2, size - 1)) << 1;
        blocks = new long[n];
        stamps = new long[n];
        shift = 64 - Integer.numberOfTrailingZeros(n);
        this.window = window;
    }

    static GhostTable forSlots(int totalSlots) {
        return new GhostTable(Math.min(1 << 16, Math.max(1024, 2 * totalSlots)), totalSlots);
    }

    private int index(long block) {
        return (int) ((block * 0x9E3779B97F4A7C15L) >>> shift);
    }

    /**
     * How many times in a row granules overlapping [g0, g1) of {@code block} were read through, each within the window
     * of the one before: 0 when no such piece is remembered, 1 when it was read through once, up to 3.
     */
    int reads(long block, int g0, int g1) {
        int i = index(block);
        long stamp = stamps[i];
        int r0 = (int) (stamp >>> GRANULE_BITS & GRANULE_MASK);
        int r1 = (int) (stamp & GRANULE_MASK);
        // stored as block + 1 so that an empty entry (0) never matches
        boolean recent = blocks[i] == block + 1 && clock - (stamp >>> CLOCK_SHIFT) <= window && g0 < r1 && r0 < g1;
        return recent ? (int) (stamp >>> REUSE_SHIFT & REUSE_MASK) + 1 : 0;
    }

    /** Granules [g0, g1) of {@code block} were read through. */
    void remember(long block, int g0, int g1) {
        record(block, g0, g1, Math.min(reads(block, g0, g1), (int) REUSE_MASK));
    }

    /** Granules [g0, g1) of {@code block} are wanted soon (PRE-FETCH): counted as read through often. */
    void wanted(long block, int g0, int g1) {
        record(block, g0, g1, (int) REUSE_MASK);
    }

    private void record(long block, int g0, int g1, int reuses) {
        int i = index(block);
        blocks[i] = block + 1;
        stamps[i] = ++clock << CLOCK_SHIFT | (long) reuses << REUSE_SHIFT | (long) g0 << GRANULE_BITS | g1;
    }
}
